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
    let logger: Logger
    /// How long a request waits for a pooled connection before it is answered `StoreUnavailable`.
    let connectionWait: Duration
    /// Ends the leases that waited `connectionWait` for a connection.
    let leaseWatch: LeaseWatch
    /// Refresh rotations waiting for the next batch (`PostgresAuthStore+Rotation.swift`).
    let rotations = GroupCommitQueue<RefreshRotation, RefreshRotationOutcome>(
        separating: { AnyHashable($0.presentedHash) })
    /// Runs the client's connection pool until `shutdown()` cancels it.
    private let runTask: Task<Void, Never>
    /// The change stamp: moved by this process's user writes and by other servers' notifications.
    let changes = UserChangeFeed()
    /// Listens for other servers' user changes from `migrate()` until `shutdown()` cancels it.
    private let listenTask = Mutex<Task<Void, Never>?>(nil)

    /// Creates the store and starts its connection pool; connections open on first use.
    /// Call `migrate()` before use (or use `connect(url:logger:)`), and `shutdown()` when done.
    /// `connectionWait` bounds how long a request waits for a connection while the database is unreachable.
    public init(url: String, logger: Logger, connectionWait: Duration = .seconds(5)) throws {
        let parsed = try PostgresConnectionURL(url)
        let client = PostgresClient(configuration: parsed.configuration, backgroundLogger: logger)
        self.client = client
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
            task = Task { [changes, client, logger] in await changes.run(client: client, logger: logger) }
        }
    }

    /// Closes every connection. Further calls fail. Bounded: a listener still waiting on a connection the database
    /// dropped (seen once under load, after `pg_terminate_backend`) must not hold a server's shutdown, nor a pool
    /// waiting for that listener's lease; after `shutdownWait` each is left to end with the process.
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

    /// Whether `task` ends within `limit`. Awaiting a task's value ignores cancellation, so the wait races a timer
    /// outside structured concurrency, which would otherwise wait for both.
    static func finishes(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        final class Once: Sendable {
            let done = Mutex(false)
            func first() -> Bool { done.withLock { done in defer { done = true }; return !done } }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Once()
            let resume = { @Sendable (finished: Bool) in
                if once.first() { continuation.resume(returning: finished) }
            }
            Task {
                await task.value
                resume(true)
            }
            Task {
                try? await Task.sleep(for: limit)
                resume(false)
            }
        }
    }

    // MARK: Users

    public func insertUser(_ user: UserRecord) async throws {
        try await transaction { db in
            if try await !db.run("SELECT 1 FROM users WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
                .isEmpty
            {
                throw StoreError.uidExists
            }
            try await Self.checkUniqueFields(db, user)
            // A concurrent insert that passed the same checks makes this fail with a unique violation,
            // which `transaction` turns into the same StoreError.
            try await Self.insertRow(db, user)
        }
    }

    public func user(projectID: String, uid: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = \(uid)
                \(unescaped: Self.orderLinks)
                """))
    }

    public func user(projectID: String, email: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.email = \(email)
                \(unescaped: Self.orderLinks)
                """))
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await transaction { db in
            try await Self.checkUniqueFields(db, user)
            // A concurrent update of the same row waits for the first to commit, then sees the bumped version.
            let updated = try await db.run(PostgresUserRow.update(user))
            if updated.isEmpty {
                let exists = try await !db.run(
                    "SELECT 1 FROM users WHERE project_id = \(user.projectID) AND uid = \(user.uid)"
                ).isEmpty
                throw exists ? StoreError.versionConflict : StoreError.userNotFound
            }
            try await db.run("DELETE FROM provider_links WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
            try await Self.writeProviders(db, user)
        }
    }

    public func recordSignIn(projectID: String, uid: String, at: Date) async throws {
        try await query(
            """
            UPDATE users SET last_login_at = \(at.millisecondsSince1970), last_refresh_at = \(at.millisecondsSince1970)
            WHERE project_id = \(projectID) AND uid = \(uid)
            """,
            changesUsers: true)
    }

    public func recordRefresh(projectID: String, uid: String, at: Date) async throws {
        try await query(
            "UPDATE users SET last_refresh_at = \(at.millisecondsSince1970) WHERE project_id = \(projectID) AND uid = \(uid)",
            changesUsers: true)
    }

    public func deleteUser(projectID: String, uid: String) async throws -> Bool {
        try await transaction { db in
            let existed = try await !db.run(
                "DELETE FROM users WHERE project_id = \(projectID) AND uid = \(uid) RETURNING 1"
            ).isEmpty
            try await db.run("DELETE FROM provider_links WHERE project_id = \(projectID) AND uid = \(uid)")
            if existed {
                try await Self.revokeFamilies(db, projectID: projectID, uid: uid, reason: .userDeleted, at: Date())
            }
            return existed
        }
    }

    public func countUsers(projectID: String) async throws -> Int {
        try await query("SELECT COUNT(*) FROM users WHERE project_id = \(projectID)").first?.decode(Int.self) ?? 0
    }

    /// The change stamp (`UserChangeFeed`): nil while this store might miss another server's user changes.
    public func changeStamp() -> UInt64? { changes.stamp() }

    // MARK: Refresh tokens

    public func insertRefreshFamily(_ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws {
        try await transaction { db in
            try await db.run(
                """
                INSERT INTO refresh_families (id, project_id, uid, auth_time, sign_in_provider, created_at, extra_claims,
                  second_factor, second_factor_id)
                VALUES (\(family.id), \(family.projectID), \(family.uid), \(family.authTime.millisecondsSince1970),
                  \(family.signInProvider), \(family.createdAt.millisecondsSince1970), \(family.extraClaims),
                  \(family.secondFactor?.factorID), \(family.secondFactor?.enrollmentID))
                """)
            try await db.run(
                """
                INSERT INTO refresh_tokens (hash, family_id, issued_at)
                VALUES (\(Data(tokenHash)), \(family.id), \(family.createdAt.millisecondsSince1970))
                """)
        }
    }

    public func revokeRefreshFamilies(projectID: String, uid: String, reason: RefreshRevocationReason, at: Date)
        async throws
    {
        try await transaction { db in
            try await Self.revokeFamilies(db, projectID: projectID, uid: uid, reason: reason, at: at)
        }
    }

    public func purgeRefreshTokens(before cutoff: Date) async throws -> Int {
        let ms = cutoff.millisecondsSince1970
        return try await transaction { db in
            let rotated = try await db.run("DELETE FROM refresh_tokens WHERE rotated_at < \(ms) RETURNING 1").count
            let orphaned = try await db.run(
                """
                DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM refresh_families WHERE revoked_at < \(ms))
                RETURNING 1
                """
            ).count
            try await db.run("DELETE FROM refresh_families WHERE revoked_at < \(ms)")
            return rotated + orphaned
        }
    }

    // MARK: Phone verification

    public func insertPhoneVerification(_ v: PhoneVerification) async throws {
        try await query(
            """
            INSERT INTO phone_verifications (session_hash, project_id, phone_number, code_hash, created_at, expires_at)
            VALUES (\(Data(v.sessionHash)), \(v.projectID), \(v.phoneNumber), \(Data(v.codeHash)),
              \(v.createdAt.millisecondsSince1970), \(v.expiresAt.millisecondsSince1970))
            """)
    }

    public func attemptPhoneCode(sessionHash: [UInt8], codeHash: [UInt8], maxAttempts: Int, now: Date) async throws
        -> PhoneCodeOutcome
    {
        let key = Data(sessionHash)
        return try await transaction { db in
            // Locking the session row makes concurrent attempts queue here; each later one re-reads the row
            // after the earlier commit, so it sees the counted attempt or finds the session gone.
            let rows = try await db.run(
                """
                SELECT phone_number, code_hash, attempts, expires_at FROM phone_verifications
                WHERE session_hash = \(key)
                FOR UPDATE
                """)
            guard let row = rows.first else { return .unknown }
            let (phone, expected, attempts, expiresAt) = try row.decode((String, Data, Int, Int64).self)
            if now.millisecondsSince1970 >= expiresAt {
                try await db.run("DELETE FROM phone_verifications WHERE session_hash = \(key)")
                return .expired
            }
            if ConstantTime.equals(Array(expected), codeHash) {
                try await db.run("DELETE FROM phone_verifications WHERE session_hash = \(key)")
                return .verified(phoneNumber: phone)
            }
            let remaining = maxAttempts - attempts - 1
            if remaining <= 0 {
                try await db.run("DELETE FROM phone_verifications WHERE session_hash = \(key)")
            } else {
                try await db.run("UPDATE phone_verifications SET attempts = attempts + 1 WHERE session_hash = \(key)")
            }
            return .wrongCode(remaining: max(remaining, 0))
        }
    }

    public func phoneVerificationIsLive(sessionHash: [UInt8], now: Date) async throws -> Bool {
        try await !query(
            """
            SELECT 1 FROM phone_verifications
            WHERE session_hash = \(Data(sessionHash)) AND expires_at > \(now.millisecondsSince1970)
            """
        ).isEmpty
    }

    public func deletePhoneVerification(sessionHash: [UInt8]) async throws {
        try await query("DELETE FROM phone_verifications WHERE session_hash = \(Data(sessionHash))")
    }

    public func insertPhoneProof(_ proof: PhoneProof) async throws {
        try await query(
            """
            INSERT INTO phone_proofs (proof_hash, project_id, phone_number, expires_at)
            VALUES (\(Data(proof.proofHash)), \(proof.projectID), \(proof.phoneNumber),
              \(proof.expiresAt.millisecondsSince1970))
            """)
    }

    public func consumePhoneProof(proofHash: [UInt8], projectID: String, now: Date) async throws -> String? {
        // One statement: of concurrent consumers only the one whose DELETE removed the row gets the number.
        // A proof of another project is left alone, as in SQLite.
        let rows = try await query(
            """
            DELETE FROM phone_proofs WHERE proof_hash = \(Data(proofHash)) AND project_id = \(projectID)
            RETURNING phone_number, expires_at
            """)
        guard let (phone, expiresAt) = try rows.first?.decode((String, Int64).self) else { return nil }
        return now.millisecondsSince1970 < expiresAt ? phone : nil
    }

    public func user(projectID: String, phoneNumber: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.phone_number = \(phoneNumber)
                \(unescaped: Self.orderLinks)
                """))
    }

    // MARK: Development SMS outbox

    public func appendOutbox(_ m: OutboxMessage) async throws {
        try await query(
            """
            INSERT INTO sms_outbox (project_id, phone_number, code, session_info, text, sent_at)
            VALUES (\(m.projectID), \(m.phoneNumber), \(m.code), \(m.sessionInfo), \(m.text),
              \(m.sentAt.millisecondsSince1970))
            """)
    }

    public func outbox(projectID: String) async throws -> [OutboxMessage] {
        try await query(
            """
            SELECT project_id, phone_number, code, session_info, text, sent_at FROM sms_outbox
            WHERE project_id = \(projectID) ORDER BY id
            """
        ).map { row in
            let (project, phone, code, session, text, sentAt) = try row.decode(
                (String, String, String, String, String, Int64).self)
            return OutboxMessage(
                projectID: project, phoneNumber: phone, code: code, sessionInfo: session, text: text,
                sentAt: Date(millisecondsSince1970: sentAt))
        }
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [StoredSigningKey] {
        try await query(Self.selectKeys).map(Self.signingKey(from:))
    }

    public func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> [StoredSigningKey] {
        try await transaction { db in
            // Row locks cannot guard an empty table; two servers starting together queue on this lock
            // instead, and the second sees the first one's key once it may proceed.
            try await db.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.firstSigningKeyLock))")
            if try await db.run(Self.selectKeys).isEmpty {
                try await Self.insertKey(db, key)
            }
            return try await db.run(Self.selectKeys).map(Self.signingKey(from:))
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try await transaction { db in try await Self.insertKey(db, key) }
    }

    public func retireSigningKey(kid: String, at: Date) async throws {
        try await query(
            "UPDATE signing_keys SET retired_at = \(at.millisecondsSince1970) WHERE kid = \(kid) AND retired_at IS NULL"
        )
    }

    public func deleteSigningKey(kid: String) async throws {
        try await query("DELETE FROM signing_keys WHERE kid = \(kid)")
    }

    // MARK: Counters

    public func incrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        // One statement: ON CONFLICT locks the existing row, so concurrent increments never lose a count.
        let rows = try await query(
            """
            INSERT INTO counters (key, window_start, count) VALUES (\(key), \(start), 1)
            ON CONFLICT (key) DO UPDATE SET
              count = CASE WHEN counters.window_start = excluded.window_start THEN counters.count + 1 ELSE 1 END,
              window_start = excluded.window_start
            RETURNING count
            """)
        return try rows.first?.decode(Int.self) ?? 1
    }

    public func counter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        return try await query("SELECT count FROM counters WHERE key = \(key) AND window_start = \(start)")
            .first?.decode(Int.self) ?? 0
    }

    public func claimInterval(_ key: String, seconds: Int, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        let cutoff = nowMs - Int64(seconds) * 1000
        // The update applies only when the last event is old enough; otherwise no row is returned.
        return try await !query(
            """
            INSERT INTO counters (key, window_start, count) VALUES (\(key), \(nowMs), 1)
            ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = counters.count + 1
            WHERE counters.window_start <= \(cutoff)
            RETURNING window_start
            """
        ).isEmpty
    }

    public func resetCounter(_ key: String) async throws {
        try await query("DELETE FROM counters WHERE key = \(key)")
    }

    public func decrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        try await query(
            "UPDATE counters SET count = count - 1 WHERE key = \(key) AND window_start = \(start) AND count > 0")
    }
}

// MARK: - Federated identities

extension PostgresAuthStore {
    public func user(projectID: String, providerID: String, rawID: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = (SELECT uid FROM provider_links
                  WHERE project_id = \(projectID) AND provider_id = \(providerID) AND raw_id = \(rawID))
                \(unescaped: Self.orderLinks)
                """))
    }

    public func user(projectID: String, providerEmail: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = (SELECT uid FROM provider_links
                  WHERE project_id = \(projectID) AND email = \(providerEmail) ORDER BY uid COLLATE "C" LIMIT 1)
                \(unescaped: Self.orderLinks)
                """))
    }

    public func claimSingleUse(_ key: String, until: Date, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        try await query("DELETE FROM single_use_keys WHERE expires_at <= \(nowMs)")
        // ON CONFLICT locks the existing row: of concurrent claims exactly one inserts or revives an expired use.
        return try await !query(
            """
            INSERT INTO single_use_keys (key, expires_at) VALUES (\(key), \(until.millisecondsSince1970))
            ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE single_use_keys.expires_at <= \(nowMs)
            RETURNING 1
            """
        ).isEmpty
    }
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
            do {
                return try await connection.withTransaction(logger: logger) { connection in
                    try await body(Transaction(connection: connection, logger: logger))
                }
            } catch let error as PostgresTransactionError {
                throw error.closureError ?? error.commitError ?? error.beginError ?? error
            }
        }
    }

    /// A connection inside an open transaction.
    struct Transaction: Sendable {
        let connection: PostgresConnection
        let logger: Logger

        @discardableResult
        func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
            try await connection.query(query, logger: logger).collect()
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
        let leased = Task { [client] in
            try await client.withConnection { connection in
                guard lease.begin() else { throw CancellationError() }
                return try await body(connection)
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
    /// E-mail, phone number and each provider identity are unique per project.
    static func checkUniqueFields(_ db: Transaction, _ user: UserRecord) async throws {
        if let phone = user.phoneNumber {
            let taken = try await db.run(
                """
                SELECT 1 FROM users WHERE project_id = \(user.projectID) AND phone_number = \(phone) AND uid <> \(user.uid)
                """)
            if !taken.isEmpty { throw StoreError.phoneNumberExists }
        }
        if let email = user.email {
            let taken = try await db.run(
                "SELECT 1 FROM users WHERE project_id = \(user.projectID) AND email = \(email) AND uid <> \(user.uid)")
            if !taken.isEmpty { throw StoreError.emailExists }
        }
        for link in user.providers {
            let linked = try await db.run(
                """
                SELECT 1 FROM provider_links WHERE project_id = \(user.projectID) AND provider_id = \(link.providerID)
                  AND raw_id = \(link.rawID) AND uid <> \(user.uid)
                """)
            if !linked.isEmpty { throw StoreError.federatedIDExists }
        }
    }

    /// Inserts the user's row and provider links; uniqueness is the caller's to check.
    static func insertRow(_ db: Transaction, _ user: UserRecord) async throws {
        try await insertRows(db, [user])
    }

    static func writeProviders(_ db: Transaction, _ user: UserRecord) async throws {
        try await insertLinks(db, user.providers.map { (user, $0) })
    }

    /// Byte-wise order, as SQLite sorts, whatever the database's collation.
    static let orderLinks = #"ORDER BY l.provider_id COLLATE "C", l.raw_id COLLATE "C""#

    static func user(from rows: [PostgresRow]) throws -> UserRecord? {
        try PostgresUserRow.users(from: rows).first
    }

    static func date(_ cell: PostgresCell) throws -> Date? {
        try cell.decode(Int64?.self).map(Date.init(millisecondsSince1970:))
    }

    static func family(from row: PostgresRandomAccessRow) throws -> RefreshTokenFamily {
        RefreshTokenFamily(
            id: try row["id"].decode(String.self),
            projectID: try row["project_id"].decode(String.self),
            uid: try row["uid"].decode(String.self),
            authTime: Date(millisecondsSince1970: try row["auth_time"].decode(Int64.self)),
            signInProvider: try row["sign_in_provider"].decode(String.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            revokedAt: try date(row["revoked_at"]),
            revokeReason: try row["revoke_reason"].decode(String?.self).flatMap(
                RefreshRevocationReason.init(rawValue:)),
            extraClaims: try row["extra_claims"].decode(String?.self),
            secondFactor: try secondFactor(row))
    }

    static func secondFactor(_ row: PostgresRandomAccessRow) throws -> SecondFactorClaim? {
        guard let factor = try row["second_factor"].decode(String?.self),
            let enrollment = try row["second_factor_id"].decode(String?.self)
        else { return nil }
        return SecondFactorClaim(factorID: factor, enrollmentID: enrollment)
    }

    static func revokeFamilies(
        _ db: Transaction, projectID: String, uid: String, reason: RefreshRevocationReason, at: Date
    )
        async throws
    {
        try await db.run(
            """
            UPDATE refresh_families SET revoked_at = \(at.millisecondsSince1970), revoke_reason = \(reason.rawValue)
            WHERE project_id = \(projectID) AND uid = \(uid) AND revoked_at IS NULL
            """)
    }

    static let selectKeys: PostgresQuery = #"SELECT * FROM signing_keys ORDER BY activates_at, kid COLLATE "C""#

    static func signingKey(from row: PostgresRow) throws -> StoredSigningKey {
        let row = row.makeRandomAccess()
        return StoredSigningKey(
            kid: try row["kid"].decode(String.self),
            algorithm: try row["algorithm"].decode(String.self),
            privateKey: Array(try row["private_key"].decode(Data.self)),
            encrypted: try row["encrypted"].decode(Bool.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            activatesAt: Date(millisecondsSince1970: try row["activates_at"].decode(Int64.self)),
            retiredAt: try date(row["retired_at"]))
    }

    static func insertKey(_ db: Transaction, _ key: StoredSigningKey) async throws {
        try await db.run(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key, encrypted, created_at, activates_at, retired_at)
            VALUES (\(key.kid), \(key.algorithm), \(Data(key.privateKey)), \(key.encrypted),
              \(key.createdAt.millisecondsSince1970), \(key.activatesAt.millisecondsSince1970),
              \(key.retiredAt?.millisecondsSince1970))
            """)
    }
}
