import ArgumentParser
import Foundation
import HearthCore
import HearthTokens

struct ServiceAccounts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-accounts",
        abstract: "Manage the service-account keys that authenticate the Admin API and sign custom tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a key and write its service-account JSON file (Google's format).",
            discussion: """
                Give the file to firebase-admin as credentials.Certificate(path), or to any Google auth library: \
                it exchanges a JWT signed by the key at token_uri (this server's /oauth2/token) for an admin access \
                token, and signs custom tokens offline. Hearth keeps only the public key; the file is written with \
                mode 0600 and is the only copy of the private key.
                """)
        @OptionGroup var options: ConfigurationOptions

        @Option(name: .shortAndLong, help: "Where to write the JSON file (refuses to overwrite one).")
        var out: String

        @Option(help: "Account name, the part of client_email before @ (default: hearth-admin-<random>).")
        var name: String?

        @Option(
            help:
                "token_uri written into the file: this server's /oauth2/token as admin clients reach it (default http://HOST:PORT/oauth2/token from the configuration)."
        )
        var tokenURI: String?

        func run() async throws {
            let configuration = try options.resolve()
            let project = configuration.defaultProject
            let tokenURI = tokenURI ?? "http://\(configuration.host):\(configuration.port)/oauth2/token"
            guard !FileManager.default.fileExists(atPath: out) else {
                throw CommandFailure("\(out) exists; choose another path or remove it first")
            }
            let credential = try ServiceAccountCredential.generate(
                projectID: project, tokenURI: tokenURI, name: name, random: .system, now: Date())
            // Write the file first: a key whose private half was never saved must not be registered.
            let created = FileManager.default.createFile(
                atPath: out, contents: Data(credential.json.jsonBytes), attributes: [.posixPermissions: 0o600])
            guard created else { throw CommandFailure("could not write \(out)") }
            try await Users.withEngine(options) { engine, _ in try await engine.registerServiceAccountKey(credential.key) }
            print("created key \(credential.key.keyID) for \(credential.key.clientEmail) (project \(project))")
            print("wrote \(out) (mode 0600); token_uri \(tokenURI)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List service-account keys, revoked ones included.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try options.resolve()
            let store = try await Runtime.openStore(configuration, logger: Runtime.logger(configuration))
            let keys = try await store.serviceAccountKeys()
            if keys.isEmpty {
                print("no service-account keys; create one with: hearth service-accounts create --out FILE")
            }
            for key in keys {
                let state = key.revokedAt.map { "revoked \(Keys.List.format($0))" } ?? "active"
                print(
                    "\(key.keyID)  \(key.projectID)  \(key.clientEmail)  created \(Keys.List.format(key.createdAt))  \(state)"
                )
            }
            try await store.shutdown()
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a key: its access tokens and custom tokens are refused from now on.")
        @OptionGroup var options: ConfigurationOptions

        @Argument(help: "The key id (private_key_id in the JSON file).")
        var keyID: String

        func run() async throws {
            do {
                try await Users.withEngine(options) { engine, _ in _ = try await engine.revokeServiceAccountKey(keyID: keyID) }
            } catch is CommandFailure {
                throw CommandFailure("no active key \(keyID); see hearth service-accounts list")
            }
            print("revoked \(keyID)")
        }
    }
}
