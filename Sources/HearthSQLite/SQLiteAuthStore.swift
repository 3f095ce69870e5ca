import Dispatch
import Foundation
import GRDB
import HearthCore
import HearthStore

/// The default store: one SQLite file in WAL mode, written by one connection at a time.
///
/// `synchronous = NORMAL` in WAL mode loses no committed transaction when the process dies
/// (the WAL is in the OS page cache); `durability: .full` also survives power loss, at an fsync per commit.
public final class SQLiteAuthStore: AuthStore {
    public enum Durability: String, Sendable { case normal, full }

    let pool: DatabasePool
    /// Group commit of concurrent refresh-token rotations, and of concurrent passkey sign-ins.
    let rotations: WriteBatcher<RefreshRotation, RefreshRotationOutcome>
    let passkeySignIns: WriteBatcher<PasskeySignIn, Bool>
    /// The change stamp's own connection: `PRAGMA data_version` counts the commits of every *other* connection
    /// (the pool's writer, other processes), and its values are comparable only on one connection.
    let stampConnection: UserChangeProbe
    /// Point reads on the caller's thread, when a connection is free at once.
    let pointReads: PointReadConnections
    /// Copies the WAL into the database file off the writer's thread.
    let checkpointer: WALCheckpointer
    public let description: String

    /// Opens (creating if needed) the database file at `path` and migrates it.
    public init(path: String, durability: Durability = .normal, busyTimeout: TimeInterval = 10) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        // GRDB opens write transactions with BEGIN IMMEDIATE: the write lock is taken up front, so
        // read-then-write sequences (refresh rotation) cannot interleave even across processes sharing the file.
        config.maximumReaderCount = 8
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        let checkpointer = WALCheckpointer(path: path)
        config.prepareDatabase { db in
            try db.run("PRAGMA synchronous = \(synchronous)")
            // The pool's readers never commit; its one writer does.
            if !db.configuration.readonly { checkpointer.watch(db) }
        }
        self.checkpointer = checkpointer
        pool = try DatabasePool(path: path, configuration: config)
        rotations = WriteBatcher(pool: pool, apply: Self.rotate)
        passkeySignIns = WriteBatcher(pool: pool, apply: Self.recordPasskeySignIn)
        description = "sqlite:\(path)"
        try SQLiteSchema.migrator.migrate(pool)
        stampConnection = try UserChangeProbe(path: path, busyTimeoutMilliseconds: Int32(busyTimeout * 1000))
        // About one per thread that runs requests; a reader that finds them all taken reads asynchronously.
        pointReads = PointReadConnections(
            path: path, limit: min(max(ProcessInfo.processInfo.activeProcessorCount, 2), 16))
    }

    /// The user generation (`UserChangeProbe`): it changes whenever a commit, by this process or another, has
    /// changed a stored user (a user updated or deleted, a provider link written). While nothing at all was
    /// committed it compares the mapped WAL-index header and calls no SQLite.
    public func changeStamp() -> UInt64? {
        stampConnection.read()
    }

    public func shutdown() async throws {
        // Closing blocks until every reader is returned; do it on a thread of its own so it cannot
        // hold up the executor that the last reads resume on.
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                done.resume(
                    with: Result {
                        try self.pointReads.close()
                        try self.pool.close()
                        self.checkpointer.close()
                        self.stampConnection.close()
                    })
            }
        }
    }

    /// Single-statement point reads: on the caller's thread when a point-read connection is free at once (an
    /// SQLite read from the page cache takes microseconds, less than the thread hand-offs of an async read) and
    /// without a wrapping transaction, which one statement does not need for a consistent snapshot; otherwise
    /// through GRDB's readers, asynchronously. Never a synchronous wait for a connection (`PointReadConnections`).
    func pointRead<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        if let value = try pointReads.read(body) { return value }
        return try await pool.read(body)
    }
}

// MARK: - Row mapping

extension Database {
    /// Executes through GRDB's statement cache: hot statements are compiled (and authorised) once per connection.
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}

extension SQLiteAuthStore {
    static func exists(_ db: Database, _ sql: String, _ args: StatementArguments) throws -> Bool {
        try Int.fetchOne(db.cachedStatement(sql: sql), arguments: args) != nil
    }

    static func date(_ ms: Int64?) -> Date? { ms.map(Date.init(millisecondsSince1970:)) }
}
