import ArgumentParser
import Foundation
import HearthSQLite

/// `hearth backup FILE` and `hearth restore FILE` for the embedded SQLite store. (PostgreSQL: pg_dump and
/// pg_restore, see docs/deploy.md.)
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database to FILE, consistently, while the server keeps serving.",
        discussion: """
            Uses SQLite's online backup: the copy is one moment of the database, written beside FILE and renamed \
            into place when complete (an interrupted backup leaves no half file and never touches the live \
            database). Signing keys travel in the backup (sealed if HEARTH_KEY_ENCRYPTION_KEY is set: keep that \
            key apart from the backup). For PostgreSQL use pg_dump.
            """)
    @OptionGroup var options: ConfigurationOptions
    @Argument(help: "Where to write the backup (refuses to overwrite a file).") var file: String

    func run() async throws {
        let configuration = try options.resolve()
        guard configuration.databaseURL == nil else {
            throw CommandFailure("this server uses PostgreSQL: back it up with pg_dump (docs/deploy.md)")
        }
        guard !FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(file) exists") }
        let path = URL(fileURLWithPath: configuration.dataDir).appendingPathComponent("hearth.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("no database at \(path)") }
        let store = try SQLiteAuthStore(path: path)
        let started = Date()
        try store.backup(to: file) { done, total in
            FileHandle.standardError.write(Data("\rbacking up: \(done)/\(total) pages".utf8))
        }
        try await store.shutdown()
        FileHandle.standardError.write(Data("\n".utf8))
        print("backed up \(path) to \(file) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the SQLite database with a backup made by `hearth backup` (stop the server first).",
        discussion: """
            The backup must be a Hearth database whose schema this version knows, and pass PRAGMA integrity_check, \
            before anything is replaced; it is copied in beside the live file before a rename, so a failed \
            restore leaves the old database as it was. Sessions, signing keys and users come back as they were at \
            the backup: refresh tokens issued before it work again.
            """)
    @OptionGroup var options: ConfigurationOptions
    @Argument(help: "A backup file written by `hearth backup`.") var file: String

    func run() async throws {
        let configuration = try options.resolve()
        guard configuration.databaseURL == nil else {
            throw CommandFailure("this server uses PostgreSQL: restore it with pg_restore (docs/deploy.md)")
        }
        guard FileManager.default.fileExists(atPath: file) else { throw CommandFailure("no backup at \(file)") }
        try FileManager.default.createDirectory(atPath: configuration.dataDir, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: configuration.dataDir)
        let path = URL(fileURLWithPath: configuration.dataDir).appendingPathComponent("hearth.sqlite").path
        do {
            try SQLiteAuthStore.restore(backup: file, into: path)
        } catch let error as SQLiteAuthStore.RestoreError {
            throw CommandFailure(error.message)
        }
        print("restored \(file) into \(path)")
    }
}
