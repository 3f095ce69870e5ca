import ArgumentParser
import Foundation
import HearthCore
import HearthEngine

struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read the audit log: admin changes and end-user sign-in activity.",
        subcommands: [Export.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write audit events of every project as JSON lines on standard output, newest first.",
            discussion: """
                Each line is one event as GET /hearth/v1/projects/{p}/auditEvents answers it (eventId, time, \
                actorKind, actor, clientAddress, action, projectId, tenantId, uid, outcome, diff). A count of the \
                events written goes to standard error every 10,000 events and at the end. Times are RFC 3339 \
                (2026-11-26T00:00:00Z); --since is inclusive, --until exclusive. Events older than \
                auditRetentionDays (default 400) have been purged by the server.
                """)
        @OptionGroup var options: ConfigurationOptions

        @Option(help: "Only events at or after this RFC 3339 time.")
        var since: String?

        @Option(help: "Only events before this RFC 3339 time.")
        var until: String?

        func run() async throws {
            let since = try Self.time(since, "--since")
            let until = try Self.time(until, "--until")
            let configuration = try options.resolve()
            var quiet = Runtime.logger(configuration)
            quiet.logLevel = max(quiet.logLevel, .warning)
            let runtime = try await Runtime.start(configuration, logger: quiet)
            var written = 0
            do {
                try await runtime.engine.exportAuditEvents(since: since, until: until) { events in
                    var out = Data()
                    for event in events {
                        out.append(contentsOf: event.json.jsonBytes)
                        out.append(UInt8(ascii: "\n"))
                    }
                    FileHandle.standardOutput.write(out)
                    let before = written
                    written += events.count
                    if written / 10_000 > before / 10_000 { Self.progress("\(written) events written") }
                }
            } catch {
                await runtime.shutdown()
                throw error
            }
            Self.progress("\(written) events written")
            await runtime.shutdown()
        }

        static func progress(_ line: String) {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }

        static func time(_ text: String?, _ flag: String) throws -> Date? {
            guard let text else { return nil }
            guard
                let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                    ?? (try? Date.ISO8601FormatStyle().parse(text))
            else { throw ValidationError("\(flag) must be an RFC 3339 time, such as 2026-11-26T00:00:00Z") }
            return date
        }
    }
}
