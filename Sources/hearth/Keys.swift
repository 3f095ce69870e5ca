import ArgumentParser
import Foundation

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the keys that sign ID tokens.",
        subcommands: [List.self, Rotate.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List signing keys and their state.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try options.resolve()
            let logger = Runtime.logger(configuration)
            let store = try await Runtime.openStore(configuration, logger: logger)
            let keyRing = try Runtime.keyRing(configuration, store: store)
            try await keyRing.load()
            let published = Set(keyRing.publishedKeys().map(\.kid))
            let signer = try keyRing.currentSigner().kid
            print(
                "kid                                       created               activates             retires               state"
            )
            for key in keyRing.publishedKeys() {
                let state = key.kid == signer ? "signing" : (published.contains(key.kid) ? "published" : "expired")
                print(
                    "\(key.kid)  \(Self.format(key.createdAt))  \(Self.format(key.activatesAt))  \(key.retiredAt.map(Self.format) ?? "-                   ")  \(state)"
                )
            }
            try await store.shutdown()
        }

        static func format(_ date: Date) -> String {
            date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false))
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Add a new signing key and retire the current one.",
            discussion: """
                The new key is published at once and starts signing after --lead seconds (default: one hour, the \
                Cache-Control max-age of the published keys), so verifiers that cached the key set see it before the \
                first token it signs. The old key stops signing then and stays published until tokens it signed \
                have expired. Running servers pick up the change within a minute, and at once when a token signed by \
                the new key reaches them (so --lead 0 is safe for verification by Hearth itself).
                """)
        @OptionGroup var options: ConfigurationOptions

        @Option(help: "Seconds until the new key starts signing (0: now).")
        var lead: Int = 3600

        func run() async throws {
            let lead = lead
            try await Users.withEngine(options) { engine, _ in
                let kid = try await engine.rotateSigningKey(lead: TimeInterval(lead))
                print(
                    "added key \(kid); it signs from \(Date().addingTimeInterval(TimeInterval(lead)).formatted(.iso8601))")
            }
        }
    }
}
