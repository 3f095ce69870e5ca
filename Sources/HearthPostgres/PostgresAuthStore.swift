import Foundation
import HearthCore
import HearthStore
import Logging
import PostgresNIO
import Synchronization

/// The shared store: several Hearth servers on one PostgreSQL database behave as one service.
///
/// Every read-then-write runs in one transaction at PostgreSQL's default READ COMMITTED level, with the
/// row it depends on locked (`FOR UPDATE`, a conditional `UPDATE`, `ON CONFLICT`) or an advisory lock held,
/// so concurrent servers serialise on the database rather than on anything in this process.
/// The database did not answer in time.
public struct PostgresUnreachable: Error, CustomStringConvertible {
    public let database: String
    public let timeout: Duration
    public var description: String {
        "PostgreSQL at \(database) did not answer within \(timeout.components.seconds) s: is it running and reachable?"
    }
}

public final class PostgresAuthStore: AuthStore {
    public let description: String
    let client: PostgresClient
    /// For the change-stamp listener's own connection.
    let listenerConfiguration: PostgresConnection.Configuration
    let logger: Logger
    /// How long a request waits for a pooled connection before it is answered `StoreUnavailable`.
    let connectionWait: Duration
    /// Ends the leases that waited `connectionWait` for a connection.
    let leaseWatch: LeaseWatch
    /// Ends the waits on a leased connection once it has closed.
    let closeWatch = ConnectionCloseWatch()
    /// Refresh rotations waiting for the next batch (`PostgresAuthStore+Sessions.swift`).
    let rotations = GroupCommitQueue<RefreshRotation, RefreshRotationOutcome>(
        separating: { AnyHashable($0.presented) })
    /// Runs the client's connection pool until `shutdown()` cancels it.
    private let runTask: Task<Void, Never>
    /// The change stamp: moved by this process's user writes and by other servers' notifications.
    let changes = UserChangeFeed()
    /// Listens for other servers' user changes from `migrate()` until `shutdown()` cancels it.
    let listenTask = Mutex<Task<Void, Never>?>(nil)

    /// Creates the store and starts its connection pool; connections open on first use.
    /// Call `migrate()` before use (or use `connect(url:logger:)`), and `shutdown()` when done.
    /// `connectionWait` bounds how long a request waits for a connection while the database is unreachable.
    public init(url: String, logger: Logger, connectionWait: Duration = .seconds(5)) throws {
        let parsed = try PostgresConnectionURL(url)
        let client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        self.client = client
        listenerConfiguration = parsed.connectionConfiguration
        self.logger = logger
        self.connectionWait = connectionWait
        leaseWatch = LeaseWatch(wait: connectionWait)
        description = parsed.redacted
        // Started at once, on this thread, up to its first suspension: the client counts as running before the
        // first lease, which it would otherwise log as a lease before `run()`.
        runTask = Task.immediate { await client.run() }
    }

    /// Opens the database at `url` and brings its schema up to date, failing after `timeout` with a
    /// message that names the database rather than waiting out the connection pool's own back-off.
    public static func connect(url: String, logger: Logger, timeout: Duration = .seconds(15)) async throws
        -> PostgresAuthStore
    {
        let store = try PostgresAuthStore(url: url, logger: logger)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.migrate() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw PostgresUnreachable(database: store.description, timeout: timeout)
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            try? await store.shutdown()
            throw error
        }
        return store
    }

    /// Applies the migrations not yet recorded in `schema_migrations`. Idempotent; servers starting
    /// together queue on an advisory lock, so each migration runs exactly once.
    public func migrate() async throws {
        // `connect` bounds the whole start-up wait instead, with a message naming the database.
        try await transaction(bounded: false) { db in
            try await db.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))")
            try await db.run(PostgresQuery(unsafeSQL: PostgresSchema.createMigrationsTable))
            let applied = Set(
                try await db.run("SELECT version FROM schema_migrations").map { try $0.decode(String.self) })
            for migration in PostgresSchema.migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await db.run(PostgresQuery(unsafeSQL: statement))
                }
                try await db.run(
                    """
                    INSERT INTO schema_migrations (version, applied_at)
                    VALUES (\(migration.version), \(Date().millisecondsSince1970))
                    """)
            }
        }
        // Once the pool runs and the triggers exist: until then the change stamp stays nil.
        listenTask.withLock { task in
            guard task == nil else { return }
            task = Task { [changes, listenerConfiguration, logger] in
                await changes.run(configuration: listenerConfiguration, logger: logger)
            }
        }
    }

    /// Closes every connection. Further calls fail. Bounded: should the listener or the pool not end (neither is
    /// known to), a server's shutdown does not wait for them beyond `shutdownWait`; they end with the process.
    public func shutdown() async throws {
        if let listening = listenTask.withLock({ $0 }) {
            listening.cancel()
            if await !Self.finishes(listening, within: Self.shutdownWait) {
                logger.warning("PostgreSQL user-change listener did not stop; shutting down without it")
            }
        }
        runTask.cancel()
        if await !Self.finishes(runTask, within: Self.shutdownWait) {
            logger.warning("PostgreSQL connection pool did not close in time; shutting down without it")
        }
    }

    static let shutdownWait: Duration = .seconds(5)

    /// Whether `task` ends within `limit` (awaiting a task's value ignores cancellation and time).
    static func finishes(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        await waitAtMost(limit) { await task.value } != nil
    }

    /// The change stamp (`UserChangeFeed`): nil while this store might miss another server's user changes.
    public func changeStamp() -> UInt64? { changes.stamp() }
}

// MARK: - Running queries

extension PostgresAuthStore {
    /// Runs one statement on any pooled connection, in its own implicit transaction. A statement that
    /// `changesUsers` (users or provider_links) moves the change stamp once it is done, committed or not.
    @discardableResult
    func query(_ query: PostgresQuery, changesUsers: Bool = false) async throws -> [PostgresRow] {
        defer { if changesUsers { changes.changed() } }
        return try await leasing { [logger] connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
    /// Errors come out unwrapped, with unique violations on users turned into `StoreError` and a lost or
    /// refused connection into `StoreUnavailable`.
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (Transaction) async throws -> Result)
        async throws -> Result
    {
        try await transaction(bounded: true, body)
    }

    /// `transaction(_:)`, waiting as long as the pool does for a connection unless `bounded`.
    /// Every transaction is taken to change users and moves the change stamp once it is done, committed or not
    /// (the few that do not are not frequent enough to matter; refresh rotation is a single statement).
    func transaction<Result: Sendable>(
        bounded: Bool, _ body: @escaping @Sendable (Transaction) async throws -> Result
    ) async throws -> Result {
        defer { changes.changed() }
        return try await leasing(bounded: bounded) { [logger] connection in
            // Not PostgresNIO's `withTransaction`: after a statement failed because the connection was lost, its
            // ROLLBACK would be written to the closed connection and never end, holding the request and the lease.
            let transaction = Transaction(connection: connection, logger: logger)
            try await transaction.run("BEGIN")
            let value: Result
            do {
                value = try await body(transaction)
            } catch {
                _ = try? await transaction.run("ROLLBACK")
                throw error
            }
            try await transaction.run("COMMIT")
            return value
        }
    }

    /// A connection inside an open transaction.
    struct Transaction: Sendable {
        let connection: PostgresConnection
        let logger: Logger

        /// Refused once the connection has closed: PostgresNIO neither answers nor fails a statement written to a
        /// closed connection (`waitAtMost`).
        @discardableResult
        func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
            guard !connection.isClosed else { throw StoreUnavailable("the connection to PostgreSQL closed") }
            return try await connection.query(query, logger: logger).collect()
        }
    }

    /// Runs `body` on a pooled connection, waiting at most `connectionWait` for one when `bounded`. While
    /// PostgreSQL is down the pool keeps reconnecting in the background and would hold requests in its queue for up
    /// to a minute; a request gets `StoreUnavailable` instead, and the next one after the database is back succeeds.
    func leasing<Result: Sendable>(
        bounded: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = LeaseDeadline()
        // Its own task, so that the deadline can cancel the wait without waiting for it.
        let leased = Task { [client, closeWatch] in
            while true {
                do {
                    return try await client.withConnection { connection in
                        // The pool can hand out a connection that has just closed (the database ended it); a
                        // statement written to it would never end, since PostgresNIO neither answers nor fails it.
                        guard !connection.isClosed else { throw ClosedConnectionLeased() }
                        guard lease.begin() else { throw CancellationError() }
                        return try await closeWatch.untilClosed(connection) { try await body(connection) }
                    }
                } catch is ClosedConnectionLeased {
                    // The pool notices the close a moment later; until then, and within the lease's deadline, again.
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        let watched = bounded ? leaseWatch.watch { if lease.expire() { leased.cancel() } } : nil
        defer { if let watched { leaseWatch.forget(watched) } }
        do {
            return try await withTaskCancellationHandler { try await leased.value } onCancel: { leased.cancel() }
        } catch {
            if lease.expired { throw StoreUnavailable("no connection within \(connectionWait)") }
            // Before the lease, every failure is the pool's: shut down, or given up reconnecting.
            if !lease.began { throw error as? StoreUnavailable ?? StoreUnavailable("\(error)") }
            throw Self.storeError(for: error)
        }
    }

    /// The StoreError a unique violation stands for, found by constraint name; `StoreUnavailable` for a
    /// connection PostgreSQL refused or lost; any other error unchanged.
    static func storeError(for error: any Error) -> any Error {
        guard let error = error as? PSQLError else { return error }
        if let reason = unavailability(error) { return StoreUnavailable(reason) }
        guard error.serverInfo?[.sqlState] == "23505" else { return error }
        switch error.serverInfo?[.constraintName] {
        case "users_pkey": return StoreError.uidExists
        case "users_email": return StoreError.emailExists
        case "users_phone": return StoreError.phoneNumberExists
        case "provider_links_pkey": return StoreError.federatedIDExists
        case "passkey_credentials_pkey": return StoreError.passkeyExists
        default: return error
        }
    }

    /// Why `error` means the database is (for now) out of reach, or nil when it is about the statement.
    /// Connection exceptions (SQLSTATE class 08), shutdowns (57P01 admin, 57P02 crash, 57P03 cannot connect
    /// now: "the database system is shutting down"), too many connections (53300), and the connection
    /// itself failing or closing.
    static func unavailability(_ error: PSQLError) -> String? {
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return "\(error.code)"
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            guard state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state) else { return nil }
            return "\(state) \(error.serverInfo?[.message] ?? "")"
        default:
            return nil
        }
    }
}

// MARK: - Row mapping

extension PostgresAuthStore {
    static func date(_ cell: PostgresCell) throws -> Date? {
        try cell.decode(Int64?.self).map(Date.init(millisecondsSince1970:))
    }
}

/// The pool handed out a connection that had already closed.
struct ClosedConnectionLeased: Error {}
