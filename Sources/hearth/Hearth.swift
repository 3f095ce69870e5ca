import ArgumentParser
import Dispatch
import Foundation
import NIOCore
import NIOPosix

@main
enum Main {
    static func main() {
        // Before any thread exists, since a thread keeps the arena it first mallocs in (MallocSettings). Only the
        // server: `users import` parses on every core at once, and one arena costs it ~14%.
        let command = CommandLine.arguments.dropFirst().first
        if command == nil || command == "serve" || command?.hasPrefix("-") == true { MallocSettings.shareOneArena() }
        // Run Swift concurrency on NIO's event loops, so a request is decoded, handled and answered on
        // one thread instead of hopping between the event loop and the cooperative pool.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task {
            await Hearth.main()
            exit(0)
        }
        // The main thread serves the main actor, which the command's entry point runs on.
        dispatchMain()
    }
}

struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted authentication server that speaks the Firebase Authentication protocol.",
        discussion: """
            Point Firebase SDKs at it as you would at the Firebase Auth emulator (host:port), or call its \
            REST API directly. Configuration comes from a JSON file (--config), HEARTH_* environment \
            variables and flags, in increasing order of precedence. See README.md for the file format.
            """,
        version: hearthVersion,
        subcommands: [
            Serve.self, Users.self, ServiceAccounts.self, Keys.self, Backup.self, Restore.self, BenchCrypto.self,
            Audit.self, ConsoleAdmins.self, BenchHTTP.self,
        ],
        defaultSubcommand: Serve.self)
}

/// This build's version; `hearth --version` prints it.
let hearthVersion = "0.9.0"

/// A command that could not do its work for a reason other than its flags: printed as "Error: …" with exit
/// code 1 and no usage text (which ValidationError would add).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
