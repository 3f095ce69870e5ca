import Foundation
import GRDB
import HearthSQLite
import Synchronization
import Testing

/// `hearth backup` and `hearth restore` (`SQLiteAuthStore+Backup`) on real SQLite files.
@Suite("Backup and restore", .serialized)
struct BackupTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The copy holds password hashes and sealed keys: under a umask that would make new files world-readable,
    /// the `.partial` file and its journal are 0600 from the first moment the backup runs, not only once it ends.
    @Test func aBackupInProgressIsReadableByItsOwnerOnly() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteAuthStore(path: directory.appendingPathComponent("hearth.sqlite").path)
        let target = directory.appendingPathComponent("backup.sqlite").path
        let seen = Mutex<[String: Int]>([:])
        let previous = umask(0o022)
        defer { umask(previous) }
        try store.backup(to: target) { _, _ in
            for suffix in [".partial", ".partial-journal", ".partial-wal"] {
                let file = target + suffix
                if let mode = (try? FileManager.default.attributesOfItem(atPath: file))?[.posixPermissions] as? Int {
                    seen.withLock { $0[suffix] = mode & 0o777 }
                }
            }
        }
        try await store.shutdown()
        let modes = seen.withLock { $0 }
        #expect(modes[".partial"] != nil, "the progress callback saw the partial file")
        for (suffix, mode) in modes { #expect(mode == 0o600, "\(suffix) was \(String(mode, radix: 8))") }
        let final = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(final.map { $0 & 0o777 } == 0o600)
    }

    /// Restore replaces the live database only with a Hearth database whose schema this version knows.
    @Test func restoreTakesOnlyAHearthDatabaseThisVersionKnows() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let live = directory.appendingPathComponent("hearth.sqlite").path
        let store = try SQLiteAuthStore(path: live)
        let backup = directory.appendingPathComponent("good.sqlite").path
        try store.backup(to: backup)
        try await store.shutdown()
        let before = try Data(contentsOf: URL(fileURLWithPath: live))

        let foreign = directory.appendingPathComponent("foreign.sqlite").path
        try await DatabaseQueue(path: foreign).write { db in
            try db.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('not a user')")
        }
        let future = directory.appendingPathComponent("future.sqlite").path
        try FileManager.default.copyItem(atPath: backup, toPath: future)
        try await DatabaseQueue(path: future).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99_from_a_newer_hearth')")
        }
        for (file, words) in [(foreign, "not a Hearth database"), (future, "newer Hearth")] {
            #expect {
                try SQLiteAuthStore.restore(backup: file, into: live)
            } throws: { error in
                (error as? SQLiteAuthStore.RestoreError)?.message.contains(words) == true
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: live)) == before, "the live database was replaced")
            #expect(!FileManager.default.fileExists(atPath: live + ".restoring"))
        }
        try SQLiteAuthStore.restore(backup: backup, into: live)
        let restored = try DatabaseQueue(path: live)
        #expect(try await restored.read { try $0.tableExists("users") })
    }
}
