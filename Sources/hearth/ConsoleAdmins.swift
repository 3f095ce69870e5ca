import ArgumentParser
import Foundation
import HearthCore
import HearthEngine
import HearthStore

/// `hearth console-admins`: the console's operators, managed beside a running server.
struct ConsoleAdmins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-admins",
        abstract: "Manage who may sign in to the console (/console/ on the operator listener).",
        subcommands: [Create.self, List.self, Disable.self, Enable.self, Reset.self])

    /// Where the setup link points: the console origin when one is configured, else the operator listener on
    /// loopback (HEARTH_ADMIN_PORT, or the API port + 1 as `serve` picks it).
    struct LinkOptions: ParsableArguments {
        @Option(
            help:
                "Base URL of the console as the admin's browser reaches it (default: HEARTH_CONSOLE_ORIGIN, else http://127.0.0.1:<operator port>)."
        )
        var consoleURL: String?

        func setupURL(token: String, port: Int) -> String {
            let environment = ProcessInfo.processInfo.environment
            let operatorPort = environment["HEARTH_ADMIN_PORT"].flatMap(Int.init) ?? port + 1
            let base = consoleURL ?? environment["HEARTH_CONSOLE_ORIGIN"] ?? "http://127.0.0.1:\(operatorPort)"
            return "\(base.hasSuffix("/") ? String(base.dropLast()) : base)/console/setup?token=\(token)"
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a console admin and print a one-time setup link (15 minutes) as the last line.")
        @OptionGroup var options: ConfigurationOptions
        @OptionGroup var link: LinkOptions
        @Option(help: "The admin's e-mail address.") var email: String
        @Option(help: "admin (sees and changes everything) or viewer (sees, without secrets; changes nothing).")
        var role: String = "admin"

        func run() async throws {
            guard let role = ConsoleAdmin.Role(rawValue: role) else { throw ValidationError("--role is admin or viewer") }
            let port = try options.resolve().port
            try await Users.withEngine(options) { engine, _ in
                let token = try await engine.createConsoleAdmin(email: email, role: role)
                print("created console \(role.rawValue) \(email); open this link within 15 minutes to set a password and TOTP:")
                print(link.setupURL(token: token, port: port))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List console admins.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            try await Users.withEngine(options) { engine, _ in
                let admins = try await engine.consoleAdmins()
                if admins.isEmpty { print("no console admins; create one with: hearth console-admins create --email E") }
                for admin in admins {
                    let state =
                        admin.disabled ? "disabled" : admin.setupTokenHash != nil ? "awaiting setup" : "active"
                    print("\(admin.email)  \(admin.role.rawValue)  \(state)  created \(Keys.List.format(admin.createdAt))")
                }
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable", abstract: "Disable a console admin and end their sessions.")
        @OptionGroup var options: ConfigurationOptions
        @Argument(help: "The admin's e-mail address.") var email: String

        func run() async throws {
            try await Users.withEngine(options) { engine, _ in
                try await engine.setConsoleAdminDisabled(email: email, disabled: true)
                print("disabled \(email)")
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a console admin again.")
        @OptionGroup var options: ConfigurationOptions
        @Argument(help: "The admin's e-mail address.") var email: String

        func run() async throws {
            try await Users.withEngine(options) { engine, _ in
                try await engine.setConsoleAdminDisabled(email: email, disabled: false)
                print("enabled \(email)")
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract:
                "Forget an admin's password, TOTP and recovery codes, end their sessions, and print a new setup link as the last line."
        )
        @OptionGroup var options: ConfigurationOptions
        @OptionGroup var link: LinkOptions
        @Argument(help: "The admin's e-mail address.") var email: String

        func run() async throws {
            let port = try options.resolve().port
            try await Users.withEngine(options) { engine, _ in
                let token = try await engine.resetConsoleAdmin(email: email)
                print("reset \(email); open this link within 15 minutes to set a new password and TOTP:")
                print(link.setupURL(token: token, port: port))
            }
        }
    }
}
