import GRDBSQLite
import Synchronization

/// The SQLite store's change stamp: a value that moves whenever a commit, by any connection of this process or
/// another, has changed a stored user (updated or deleted a user row, written a provider link).
///
/// Two statements on a connection of its own, under a mutex (no queue hop per ID-token check):
/// `PRAGMA data_version`, which moves with every commit of any *other* connection and reads only the WAL index,
/// and, only when it has moved, `user_generation`, a random value that triggers on `users` and `provider_links`
/// replace in the writing transaction itself (`SQLiteSchema`, v13). So commits that touch no user, such as
/// refresh-token rotations, cost one re-read of that row here and keep the engine's cached users current,
/// while a disabled, deleted or revoked user moves the stamp in the same commit that changed them.
final class UserChangeProbe: Sendable {
    /// The connection, its two prepared statements and the last values read; used only under `state`'s lock.
    private struct Connection: @unchecked Sendable {
        let database: OpaquePointer
        let dataVersion: OpaquePointer
        let generation: OpaquePointer
        var lastDataVersion: Int64?
        var lastGeneration: UInt64 = 0
    }

    private let state: Mutex<Connection?>

    init(path: String, busyTimeoutMilliseconds: Int32) throws {
        var database: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &database, flags, nil) == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(database)
            throw ProbeError(description: "cannot open \(path) for its change stamp: \(message)")
        }
        sqlite3_busy_timeout(database, busyTimeoutMilliseconds)
        var statements: [OpaquePointer] = []
        for sql in ["PRAGMA data_version", "SELECT value FROM user_generation WHERE id = 1"] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                let message = String(cString: sqlite3_errmsg(database))
                statements.forEach { sqlite3_finalize($0) }
                sqlite3_close_v2(database)
                throw ProbeError(description: "cannot prepare \(sql): \(message)")
            }
            statements.append(statement)
        }
        state = Mutex(Connection(database: database, dataVersion: statements[0], generation: statements[1]))
    }

    /// The current user generation; nil once closed or when SQLite cannot answer (callers then skip their cache).
    func read() -> UInt64? {
        state.withLock { connection -> UInt64? in
            guard var open = connection, let version = Self.integer(open.dataVersion) else { return nil }
            if version == open.lastDataVersion { return open.lastGeneration }
            // Read after the data version: a commit landing in between is in the generation read, and moves the
            // data version again, so the next call reads once more. Never the other way round.
            guard let generation = Self.integer(open.generation) else { return nil }
            open.lastDataVersion = version
            open.lastGeneration = UInt64(bitPattern: generation)
            connection = open
            return open.lastGeneration
        }
    }

    private static func integer(_ statement: OpaquePointer) -> Int64? {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    func close() {
        state.withLock { connection in
            guard let open = connection else { return }
            sqlite3_finalize(open.dataVersion)
            sqlite3_finalize(open.generation)
            sqlite3_close_v2(open.database)
            connection = nil
        }
    }

    deinit { close() }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
    }
}
