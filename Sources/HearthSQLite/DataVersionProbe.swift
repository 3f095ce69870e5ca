import GRDBSQLite
import Synchronization

/// `PRAGMA data_version` on a connection of its own, stepped under a mutex: it changes whenever another connection,
/// in this process or another, has committed since the last read, and its values are comparable only on one
/// connection. Every ID-token check asks for it (the user cache's stamp); through a GRDB queue each ask was a
/// dispatch-queue hop, and two event-loop threads taking turns there cost ~30 µs of scheduling per lookup.
final class DataVersionProbe: Sendable {
    /// The connection and its prepared statement; used only under `state`'s lock, closed once.
    private struct Connection: @unchecked Sendable {
        let database: OpaquePointer
        let statement: OpaquePointer
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
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK, let statement
        else {
            let message = String(cString: sqlite3_errmsg(database))
            sqlite3_close_v2(database)
            throw ProbeError(description: "cannot prepare PRAGMA data_version: \(message)")
        }
        state = Mutex(Connection(database: database, statement: statement))
    }

    /// The current data version; nil once closed or when SQLite cannot answer (callers then skip their cache).
    func read() -> UInt64? {
        state.withLock { connection -> UInt64? in
            guard let connection else { return nil }
            defer { sqlite3_reset(connection.statement) }
            guard sqlite3_step(connection.statement) == SQLITE_ROW else { return nil }
            return UInt64(bitPattern: sqlite3_column_int64(connection.statement, 0))
        }
    }

    func close() {
        state.withLock { connection in
            guard let open = connection else { return }
            sqlite3_finalize(open.statement)
            sqlite3_close_v2(open.database)
            connection = nil
        }
    }

    deinit { close() }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
    }
}
