import Foundation
import GRDB

extension SQLiteAuthStore {
    /// Copies the database into a new file at `path`, consistently while the server keeps writing (SQLite's
    /// online backup, inside one read transaction, so the copy is one moment of the database). The copy is written
    /// beside `path` and renamed into place only when complete, so an interrupted backup leaves no half file,
    /// and the live database is only read.
    public func backup(to path: String, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) throws {
        let partial = path + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            try Self.createPrivateFile(partial)
            let destination = try DatabaseQueue(path: partial)
            try pool.backup(to: destination, pagesPerStep: 256) { step in
                progress(step.completedPageCount, step.totalPageCount)
            }
            try destination.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial)
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: partial, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    /// Replaces the database file at `databasePath` with the backup at `backupPath` (the server must be stopped):
    /// the backup must be a Hearth database this version knows (`checkSchema`) and pass SQLite's integrity check,
    /// and is copied in beside the live file before a rename, so a failure leaves the old database as it was.
    public static func restore(backup backupPath: String, into databasePath: String) throws {
        let source = try DatabaseQueue(path: backupPath, configuration: { var c = Configuration(); c.readonly = true; return c }())
        try source.read(checkSchema)
        let verdict = try source.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        guard verdict == "ok" else { throw RestoreError(message: "the backup fails SQLite's integrity check: \(verdict ?? "?")") }
        let partial = databasePath + ".restoring"
        try? FileManager.default.removeItem(atPath: partial)
        try createPrivateFile(partial)
        let destination = try DatabaseQueue(path: partial)
        try source.backup(to: destination)
        try destination.close()
        try source.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: databasePath + suffix) {
            try FileManager.default.removeItem(atPath: databasePath + suffix)
        }
        try FileManager.default.moveItem(atPath: partial, toPath: databasePath)
    }

    /// A Hearth database: its migrations table holds the first migration and none this version does not know
    /// (a newer Hearth's database would be misread; any other SQLite file is not ours).
    static func checkSchema(_ db: Database) throws {
        let migrator = SQLiteSchema.migrator
        guard try db.tableExists("grdb_migrations"), let applied = try? migrator.appliedIdentifiers(db),
            applied.contains("v1")
        else {
            throw RestoreError(message: "the file is not a Hearth database (no Hearth schema migrations in it)")
        }
        let unknown = applied.subtracting(migrator.migrations)
        guard unknown.isEmpty else {
            throw RestoreError(
                message: "the backup was made by a newer Hearth (schema \(unknown.sorted().joined(separator: ", "))): "
                    + "restore it with that version")
        }
    }

    /// Creates `path` readable by its owner only, before SQLite opens it: SQLite gives the journals it creates
    /// beside a database the database file's mode, so nothing of the copy is ever readable by others.
    static func createPrivateFile(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RestoreError(message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
    }

    public struct RestoreError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
