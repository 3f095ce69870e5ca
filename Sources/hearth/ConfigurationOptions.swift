import ArgumentParser
import Foundation
import HearthServer

/// Options every subcommand that opens the store shares.
struct ConfigurationOptions: ParsableArguments {
    @Option(name: .long, help: "JSON config file (projects, API keys, policies, limits). Env: HEARTH_CONFIG.")
    var config: String?

    @Option(
        name: .long,
        help:
            "Directory for the embedded SQLite database, created if missing (default ./.hearth). Env: HEARTH_DATA_DIR.")
    var dataDir: String?

    @Option(
        name: .long,
        help:
            "PostgreSQL URL (postgres://user:pass@host:port/db) instead of SQLite; lets several servers share one database. Env: HEARTH_DATABASE_URL."
    )
    var databaseURL: String?

    @Option(
        name: .long,
        help:
            "Default project id: requests whose API key no project claims belong to it (default demo-hearth). Env: HEARTH_PROJECT."
    )
    var project: String?

    @Option(
        name: .long,
        help: "Log level: trace, debug, info, notice, warning, error (default info). Env: HEARTH_LOG_LEVEL.")
    var logLevel: String?

    @Option(
        name: .long,
        help:
            "Log format: text, or json (one object per line with time, level, message, request id and metadata). Env: HEARTH_LOG_FORMAT."
    )
    var logFormat: String?

    /// File, then environment, then flags.
    func resolve() throws -> ServerConfiguration {
        let env = ProcessInfo.processInfo.environment
        var configuration = ServerConfiguration()
        if let path = config ?? env["HEARTH_CONFIG"] {
            do {
                configuration = try ServerConfiguration.load(file: path)
            } catch let error as DecodingError {
                throw ValidationError("config file \(path): \(Self.describe(error))")
            } catch {
                throw ValidationError("config file \(path): \(error.localizedDescription)")
            }
        }
        try configuration.applyEnvironment(env)
        if let dataDir { configuration.dataDir = dataDir }
        if let databaseURL { configuration.databaseURL = databaseURL }
        if let project { configuration.defaultProject = project }
        if let logLevel { configuration.logLevel = logLevel }
        if let logFormat { configuration.logFormat = logFormat }
        return configuration
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            return "\(path(c)): \(c.debugDescription)"
        case .keyNotFound(let key, let c):
            return "\(path(c)).\(key.stringValue) is required"
        @unknown default:
            return "\(error)"
        }
    }
}
