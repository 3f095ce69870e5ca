import GRDBSQLite
import Synchronization

/// The SQLite store's change stamp: a value that moves whenever a commit, by any connection of this process or
/// another, has changed a stored user (updated or deleted a user row, written a provider link).
///
/// Three checks, cheapest first, under a mutex held for these reads only, never a wait for SQLite (no busy timeout
/// after the first read; no queue hop per ID-token check):
/// 1. The WAL index's header, read from the `-shm` file mapped read-only. Every commit on the database, by any
///    connection, rewrites it (SQLite's wal-index format, walformat.html: two copies of a 48-byte header that
///    include a per-commit counter and a checksum), so while it holds the bytes last seen nothing has been
///    committed anywhere and the last generation stands: a memory compare, no SQLite call.
/// 2. `PRAGMA data_version` on a connection of its own, which moves with every commit of any *other* connection.
/// 3. Only when that has moved, `user_generation`, a random value that triggers on `users` and `provider_links`
///    replace in the writing transaction itself (`SQLiteSchema`, v13; a sign-in's bookkeeping columns excepted
///    since v18). So commits that change no user, such as refresh-token rotations and sign-in times, cost one
///    re-read of that row here and keep the engine's cached users current, while a disabled, deleted or revoked
///    user moves the stamp in the same commit that changed them.
/// Each check's value is taken before the next one reads, so a commit landing in between is caught by the next
/// call, never missed.
final class UserChangeProbe: Sendable {
    /// The connection, its two prepared statements, the mapped WAL-index header and the last values read; used
    /// only under `state`'s lock.
    private struct Connection: @unchecked Sendable {
        let database: OpaquePointer
        let dataVersion: OpaquePointer
        let generation: OpaquePointer
        /// The WAL index's first region as SQLite itself maps it for this connection (its VFS's `xShmMap`), valid
        /// while the connection is open; nil when SQLite has none (then checks 2 and 3 only). Not a mapping of our
        /// own: opening and closing a descriptor of the `-shm` file would drop every POSIX lock the process holds on
        /// it, SQLite's included, and without its lock the next process to open the database (the sqlite3 shell, a
        /// backup, another server) takes itself for the first, truncates the file and re-initialises it under this
        /// process's mappings: SIGBUS.
        var walIndex: UnsafeRawPointer?
        var lastHeader = WALIndexHeader()
        var lastDataVersion: Int64?
        var lastGeneration: UInt64 = 0
    }

    /// The wal-index header's first copy (48 bytes), compared as bytes; SQLite writes copy 2, then copy 1.
    private struct WALIndexHeader: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        static let size = 48
        /// SQLite's wal-index regions are 32 KiB (walformat.html); the header opens the first.
        static let regionSize: Int32 = 32768

        static func == (a: Self, b: Self) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
                && a.words.4 == b.words.4 && a.words.5 == b.words.5
        }

        /// Both copies as they are now, or nil while a writer is between them (then the slower checks decide).
        /// Called under the probe's lock, whose acquire orders these loads after any earlier call's.
        static func read(_ base: UnsafeRawPointer) -> WALIndexHeader? {
            var first = WALIndexHeader()
            var second = WALIndexHeader()
            withUnsafeMutableBytes(of: &first.words) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: size)) }
            withUnsafeMutableBytes(of: &second.words) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: base + size, count: size))
            }
            return first == second ? first : nil
        }
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
        // A first read attaches this connection to the WAL index, which then lives at least as long as it does
        // (SQLite resets the -shm file only when no connection has it open).
        guard read() != nil else { throw ProbeError(description: "cannot read the user generation of \(path)") }
        // From now on called on the executor's threads, under the lock: SQLite answers busy at once instead of
        // sleeping in its busy handler there, and the stamp is nil for that call (its callers then read the store).
        state.withLock { if let open = $0 { sqlite3_busy_timeout(open.database, 0) } }
        state.withLock { if let open = $0 { $0?.walIndex = Self.walIndex(of: open.database) } }
    }

    /// The first wal-index region of `database`'s main file, from the VFS that SQLite already attached it to.
    private static func walIndex(of database: OpaquePointer) -> UnsafeRawPointer? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(database, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
            let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2, let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        // Region 0 without extending the file: it exists once a connection has read the database in WAL mode.
        guard withUnsafeMutablePointer(to: &region, { map(file, 0, WALIndexHeader.regionSize, 0, $0) }) == SQLITE_OK
        else { return nil }
        return region.map { UnsafeRawPointer($0) }
    }

    /// Whether the first check is in use (the WAL index was mapped).
    var readsWALIndexHeader: Bool { state.withLock { $0?.walIndex != nil } }

    /// The current user generation; nil once closed or when SQLite cannot answer (callers then skip their cache).
    func read() -> UInt64? {
        state.withLock { connection -> UInt64? in
            guard var open = connection else { return nil }
            let header = open.walIndex.flatMap(WALIndexHeader.read)
            if let header, header == open.lastHeader, open.lastDataVersion != nil { return open.lastGeneration }
            guard let version = Self.integer(open.dataVersion) else { return nil }
            if version != open.lastDataVersion {
                guard let generation = Self.integer(open.generation) else { return nil }
                open.lastDataVersion = version
                open.lastGeneration = UInt64(bitPattern: generation)
            }
            // The header read before both: if a commit came after it, the next call sees other bytes.
            open.lastHeader = header ?? WALIndexHeader()
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
            // Unmaps the WAL index with the connection (SQLite's mapping, shared with this process's others).
            sqlite3_close_v2(open.database)
            connection = nil
        }
    }

    deinit { close() }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
    }
}
