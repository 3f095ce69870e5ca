import ArgumentParser
import Foundation
import HearthCore
import HearthEngine

struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage users directly in the store (the server may be running).",
        subcommands: [
            UsersImport.self, UsersExport.self, Get.self, Create.self, Update.self, Delete.self, Disable.self,
            SetClaims.self,
        ])

    /// Runs `body` with an engine on the configured store, acting as an admin of the default project.
    static func withEngine(_ options: ConfigurationOptions, _ body: (AuthEngine, RequestOrigin) async throws -> Void)
        async throws
    {
        let configuration = try options.resolve()
        var quiet = Runtime.logger(configuration)
        quiet.logLevel = max(quiet.logLevel, .warning)
        let runtime = try await Runtime.start(configuration, logger: quiet)
        guard let project = runtime.engine.projects.config(configuration.defaultProject) else {
            throw CommandFailure("unknown project \(configuration.defaultProject)")
        }
        do {
            // Changes made from the command line are audited as `cli`.
            try await AuditActor.$current.withValue(AuditActor(kind: .cli, id: "cli", clientAddress: nil)) {
                try await body(runtime.engine, RequestOrigin(project: project, clientIP: nil, isAdmin: true))
            }
        } catch let error as AuthError {
            await runtime.shutdown()
            throw CommandFailure(error.message)
        }
        await runtime.shutdown()
    }

    static func show(_ user: UserRecord) {
        print(UserExportFormat.entry(user).jsonText)
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "Print a user as JSON, by uid, e-mail or phone number.")
        @OptionGroup var options: ConfigurationOptions
        @Argument(help: "A uid, an e-mail address or a +E.164 phone number.") var identifier: String

        func run() async throws {
            try await Users.withEngine(options) { engine, origin in
                let users = try await engine.adminLookup(
                    localIDs: [identifier], emails: identifier.contains("@") ? [identifier] : [],
                    phoneNumbers: identifier.hasPrefix("+") ? [identifier] : [], origin: origin)
                guard let user = users.first else { throw CommandFailure("no user \(identifier)") }
                Users.show(user)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a user and print it.")
        @OptionGroup var options: ConfigurationOptions
        @Option(help: "uid (default: a random one).") var uid: String?
        @Option var email: String?
        @Option(help: "Hashed with the server's scheme; prefer --password-stdin on shared machines.") var password:
            String?
        @Flag(help: "Read the password from standard input.") var passwordStdin = false
        @Option var displayName: String?
        @Option var phoneNumber: String?
        @Flag var emailVerified = false

        func run() async throws {
            let password = passwordStdin ? readLine(strippingNewline: true) : self.password
            try await Users.withEngine(options) { engine, origin in
                Users.show(
                    try await engine.adminCreateUser(
                        AdminCreateRequest(
                            localID: uid, email: email, password: password, displayName: displayName,
                            phoneNumber: phoneNumber, emailVerified: emailVerified),
                        origin: origin))
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "update", abstract: "Change a user's fields and print the result.")
        @OptionGroup var options: ConfigurationOptions
        @Argument var uid: String
        @Option var email: String?
        @Option var password: String?
        @Option(help: "Empty to remove.") var displayName: String?
        @Option(help: "Empty to remove.") var phoneNumber: String?
        @Option(help: "true or false.") var emailVerified: Bool?

        func run() async throws {
            try await Users.withEngine(options) { engine, origin in
                Users.show(
                    try await engine.adminUpdateUser(
                        AdminUpdateRequest(
                            localID: uid, email: email, password: password, displayName: displayName,
                            phoneNumber: phoneNumber, emailVerified: emailVerified),
                        origin: origin))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a user and end their sessions.")
        @OptionGroup var options: ConfigurationOptions
        @Argument var uid: String

        func run() async throws {
            try await Users.withEngine(options) { engine, origin in
                try await engine.adminDeleteUser(localID: uid, origin: origin)
                print("deleted \(uid)")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Disable a user (or enable again with --enable): a disabled user cannot sign in or refresh.")
        @OptionGroup var options: ConfigurationOptions
        @Argument var uid: String
        @Flag(help: "Enable the user instead.") var enable = false

        func run() async throws {
            try await Users.withEngine(options) { engine, origin in
                _ = try await engine.adminUpdateUser(
                    AdminUpdateRequest(localID: uid, disabled: !enable), origin: origin)
                print("\(enable ? "enabled" : "disabled") \(uid)")
            }
        }
    }

    struct SetClaims: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-claims",
            abstract: "Set a user's custom claims (a JSON object of at most 1000 characters; {} clears them).")
        @OptionGroup var options: ConfigurationOptions
        @Argument var uid: String
        @Argument(help: #"For example '{"admin":true}'."#) var claims: String

        func run() async throws {
            try await Users.withEngine(options) { engine, origin in
                _ = try await engine.adminUpdateUser(
                    AdminUpdateRequest(localID: uid, customAttributes: claims), origin: origin)
                print("claims of \(uid) set; they appear in ID tokens issued from now on")
            }
        }
    }
}
