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
    /// the backup is checked with SQLite's integrity check first, and copied in beside the live file before a
    /// rename, so a failure leaves the old database as it was.
    public static func restore(backup backupPath: String, into databasePath: String) throws {
        let source = try DatabaseQueue(path: backupPath, configuration: { var c = Configuration(); c.readonly = true; return c }())
        let verdict = try source.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        guard verdict == "ok" else { throw RestoreError(message: "the backup fails SQLite's integrity check: \(verdict ?? "?")") }
        let partial = databasePath + ".restoring"
        try? FileManager.default.removeItem(atPath: partial)
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

    public struct RestoreError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
