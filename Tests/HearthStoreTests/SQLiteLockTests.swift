import Foundation
import HearthTestSupport
import Testing

@testable import HearthSQLite

/// While a store is open, another process that opens the database must find it in use: SQLite's lock on the
/// `-shm` file says so. `UserChangeProbe` used to map that file through a descriptor it closed at once, and closing
/// any descriptor of a file drops every POSIX lock the process holds on it; the next process to open the database
/// (the sqlite3 shell, a backup, the bench's own reads) then truncated and re-initialised the file under the
/// server's mappings, and the server died of SIGBUS.
@Suite("SQLite locks", .timeLimit(.minutes(2)))
struct SQLiteLockTests {
    @Test func anotherProcessFindsTheWALIndexInUse() async throws {
        try await withSQLiteStore { store, path in
            #expect(store.changeStamp() != nil)
            let taken = try await anotherProcessTakesTheWALIndex(path)
            #expect(!taken)
        }
    }

    /// The probe reads the WAL index through SQLite's own mapping, so closing it first (as a store released without
    /// `shutdown()` may, in whatever order its properties go) leaves the locks of the connections still open.
    @Test func closingTheChangeStampFirstKeepsTheLock() async throws {
        try await withSQLiteStore { store, path in
            #expect(store.stampConnection.readsWALIndexHeader)
            store.stampConnection.close()
            let taken = try await anotherProcessTakesTheWALIndex(path)
            #expect(!taken)
        }
    }

    /// Whether another process can lock SQLite's "DMS" byte of the `-shm` file (offset 128) exclusively: every
    /// process using the database holds it shared, and one that can take it takes itself for the only one.
    private func anotherProcessTakesTheWALIndex(_ path: String) async throws -> Bool {
        let script = """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 128)
                print("taken")
            except OSError:
                print("refused")
            """
        let (status, output) = try await ChildProcess.run("python3", ["-c", script, path + "-shm"])
        try #require(status == 0, "\(output)")
        return output.trimmingCharacters(in: .whitespacesAndNewlines) == "taken"
    }
}
