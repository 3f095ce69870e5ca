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
    /// Group commit of concurrent refresh-token rotations.
    let rotations: RotationBatcher
    /// The change stamp's own connection: `PRAGMA data_version` counts the commits of every *other* connection
    /// (the pool's writer, other processes), and its values are comparable only on one connection.
    let stampConnection: UserChangeProbe
    public let description: String

    /// Opens (creating if needed) the database file at `path` and migrates it.
    public init(path: String, durability: Durability = .normal, busyTimeout: TimeInterval = 10) throws {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        // GRDB opens write transactions with BEGIN IMMEDIATE: the write lock is taken up front, so
        // read-then-write sequences (refresh rotation) cannot interleave even across processes sharing the file.
        config.maximumReaderCount = 8
        let synchronous = durability == .full ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            try db.run("PRAGMA synchronous = \(synchronous)")
        }
        pool = try DatabasePool(path: path, configuration: config)
        rotations = RotationBatcher(pool: pool)
        description = "sqlite:\(path)"
        try SQLiteSchema.migrator.migrate(pool)
        stampConnection = try UserChangeProbe(path: path, busyTimeoutMilliseconds: Int32(busyTimeout * 1000))
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
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async {
                done.resume(
                    with: Result {
                        self.stampConnection.close()
                        try self.pool.close()
                    })
            }
        }
    }

    // MARK: Users

    public func insertUser(_ user: UserRecord) async throws {
        try await pool.write { db in
            if try Self.exists(db, "SELECT 1 FROM users WHERE project_id = ? AND uid = ?", [user.projectID, user.uid]) {
                throw StoreError.uidExists
            }
            try Self.checkUniqueFields(db, user)
            try SQLiteUserRow.insert(db, user)
        }
    }

    /// Single-statement point reads: synchronously on the caller's thread (an SQLite read from the page
    /// cache takes microseconds, less than the thread hand-offs of an async read) and without a wrapping
    /// transaction, which one statement does not need for a consistent snapshot.
    private func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.unsafeReentrantRead(body)
    }

    public func user(projectID: String, uid: String) async throws -> UserRecord? {
        try readNow { db in
            try SQLiteUserRow.fetchOne(db, where: "u.project_id = ? AND u.uid = ?", [projectID, uid])
        }
    }

    public func user(projectID: String, email: String) async throws -> UserRecord? {
        try readNow { db in
            try SQLiteUserRow.fetchOne(db, where: "u.project_id = ? AND u.email = ?", [projectID, email])
        }
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await pool.write { db in
            try Self.checkUniqueFields(db, user)
            if try !SQLiteUserRow.update(db, user) {
                let exists = try Self.exists(
                    db, "SELECT 1 FROM users WHERE project_id = ? AND uid = ?", [user.projectID, user.uid])
                throw exists ? StoreError.versionConflict : StoreError.userNotFound
            }
            try db.run("DELETE FROM provider_links WHERE project_id = ? AND uid = ?", [user.projectID, user.uid])
            try SQLiteUserRow.insertLinks(db, user)
        }
    }

    public func recordSignIn(projectID: String, uid: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                "UPDATE users SET last_login_at = ?, last_refresh_at = ? WHERE project_id = ? AND uid = ?",
                [at.millisecondsSince1970, at.millisecondsSince1970, projectID, uid])
        }
    }

    public func recordRefresh(projectID: String, uid: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                "UPDATE users SET last_refresh_at = ? WHERE project_id = ? AND uid = ?",
                [at.millisecondsSince1970, projectID, uid])
        }
    }

    public func deleteUser(projectID: String, uid: String) async throws -> Bool {
        try await pool.write { db in
            try db.run("DELETE FROM users WHERE project_id = ? AND uid = ?", [projectID, uid])
            let existed = db.changesCount > 0
            try db.run("DELETE FROM provider_links WHERE project_id = ? AND uid = ?", [projectID, uid])
            if existed {
                try Self.revokeFamilies(
                    db, projectID: projectID, uid: uid, reason: .userDeleted, at: Date().millisecondsSince1970)
            }
            return existed
        }
    }

    public func countUsers(projectID: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM users WHERE project_id = ?"), arguments: [projectID]) ?? 0
        }
    }

    // MARK: Refresh tokens

    public func insertRefreshFamily(_ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO refresh_families (id, project_id, uid, auth_time, sign_in_provider, created_at, extra_claims,
                  second_factor, second_factor_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    family.id, family.projectID, family.uid, family.authTime.millisecondsSince1970,
                    family.signInProvider, family.createdAt.millisecondsSince1970, family.extraClaims,
                    family.secondFactor?.factorID, family.secondFactor?.enrollmentID,
                ])
            try db.run(
                "INSERT INTO refresh_tokens (hash, family_id, issued_at) VALUES (?, ?, ?)",
                [Data(tokenHash), family.id, family.createdAt.millisecondsSince1970])
        }
    }

    public func rotateRefreshToken(_ r: RefreshRotation) async throws -> RefreshRotationOutcome {
        try await rotations.rotate(r)
    }

    /// One rotation inside the caller's write transaction (`RotationBatcher` runs a batch of them in one): the
    /// presented token's row under the writer's lock, the rule's decision (`RefreshRotation.outcome(for:)`), and
    /// the writes it calls for.
    static func rotate(_ db: Database, _ r: RefreshRotation) throws -> RefreshRotationOutcome {
        let outcome = r.outcome(for: try presentedToken(db, r))
        let nowMs = r.now.millisecondsSince1970
        switch outcome {
        case .rotated(let family):
            try db.run(
                "UPDATE refresh_tokens SET rotated_at = ?, sealed_successor = ? WHERE hash = ?",
                [nowMs, Data(r.sealedSuccessor), Data(r.presentedHash)])
            try db.run(
                "INSERT INTO refresh_tokens (hash, family_id, issued_at) VALUES (?, ?, ?)",
                [Data(r.successorHash), family.id, nowMs])
        case .reuseDetected(let family):
            try db.run(
                "UPDATE refresh_families SET revoked_at = ?, revoke_reason = ? WHERE id = ?",
                [nowMs, RefreshRevocationReason.reuseDetected.rawValue, family.id])
        case .unknown, .revoked, .kept, .alreadyRotated:
            break
        }
        return outcome
    }

    /// The columns of `refresh_families` a family is read from.
    enum FamilyColumn: String, SQLiteColumn {
        case id, projectID = "project_id", uid, authTime = "auth_time", signInProvider = "sign_in_provider"
        case createdAt = "created_at", revokedAt = "revoked_at", revokeReason = "revoke_reason"
        case extraClaims = "extra_claims", secondFactor = "second_factor", secondFactorID = "second_factor_id"
        static let positions = positionTable()
    }

    /// The presented token's own columns of `refresh_tokens`, after its family's.
    enum PresentedTokenColumn: String, SQLiteColumn {
        case rotatedAt = "rotated_at", sealedSuccessor = "sealed_successor"
        static var offset: Int { FamilyColumn.allCases.count }
        static let positions = positionTable()
    }

    /// The presented token's row and its family, when the token belongs to the project or one of its tenants.
    static func presentedToken(_ db: Database, _ r: RefreshRotation) throws -> PresentedRefreshToken? {
        let row = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT \(FamilyColumn.selectList("f")), \(PresentedTokenColumn.selectList("t"))
                    FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
                    WHERE t.hash = ? AND (f.project_id = ? OR (f.project_id >= ? AND f.project_id < ?))
                    """),
            arguments: [
                Data(r.presentedHash), r.projectID, r.tenantPrefix, StoreSupport.prefixEnd(r.tenantPrefix),
            ])
        guard let row else { return nil }
        return PresentedRefreshToken(
            family: family(from: row), rotatedAtMilliseconds: row[PresentedTokenColumn.rotatedAt],
            sealedSuccessor: (row[PresentedTokenColumn.sealedSuccessor] as Data?).map(Array.init))
    }

    public func revokeRefreshFamilies(projectID: String, uid: String, reason: RefreshRevocationReason, at: Date)
        async throws
    {
        try await pool.write { db in
            try Self.revokeFamilies(db, projectID: projectID, uid: uid, reason: reason, at: at.millisecondsSince1970)
        }
    }

    public func purgeRefreshTokens(before cutoff: Date) async throws -> Int {
        let ms = cutoff.millisecondsSince1970
        return try await pool.write { db in
            try db.run("DELETE FROM refresh_tokens WHERE rotated_at < ?", [ms])
            var deleted = db.changesCount
            try db.run(
                "DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM refresh_families WHERE revoked_at < ?)",
                [ms])
            deleted += db.changesCount
            try db.run("DELETE FROM refresh_families WHERE revoked_at < ?", [ms])
            return deleted
        }
    }

    // MARK: Phone verification

    public func insertPhoneVerification(_ v: PhoneVerification) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO phone_verifications (session_hash, project_id, phone_number, code_hash, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    Data(v.sessionHash), v.projectID, v.phoneNumber, Data(v.codeHash),
                    v.createdAt.millisecondsSince1970,
                    v.expiresAt.millisecondsSince1970,
                ])
        }
    }

    public func attemptPhoneCode(sessionHash: [UInt8], codeHash: [UInt8], maxAttempts: Int, now: Date) async throws
        -> PhoneCodeOutcome
    {
        try await pool.write { db in
            let key = Data(sessionHash)
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql:
                            "SELECT phone_number, code_hash, attempts, expires_at FROM phone_verifications WHERE session_hash = ?"
                    ),
                    arguments: [key])
            else { return .unknown }
            let phone: String = row[0]
            let expected: Data = row[1]
            let attempts: Int = row[2]
            let expiresAt: Int64 = row[3]
            if now.millisecondsSince1970 >= expiresAt {
                try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [key])
                return .expired
            }
            if ConstantTime.equals(Array(expected), codeHash) {
                try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [key])
                return .verified(phoneNumber: phone)
            }
            let remaining = maxAttempts - attempts - 1
            if remaining <= 0 {
                try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [key])
            } else {
                try db.run("UPDATE phone_verifications SET attempts = attempts + 1 WHERE session_hash = ?", [key])
            }
            return .wrongCode(remaining: max(remaining, 0))
        }
    }

    public func phoneVerificationIsLive(sessionHash: [UInt8], now: Date) async throws -> Bool {
        try readNow { db in
            try Row.fetchOne(
                db, sql: "SELECT 1 FROM phone_verifications WHERE session_hash = ? AND expires_at > ?",
                arguments: [Data(sessionHash), now.millisecondsSince1970]) != nil
        }
    }

    public func deletePhoneVerification(sessionHash: [UInt8]) async throws {
        try await pool.write { db in
            try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [Data(sessionHash)])
        }
    }

    public func insertPhoneProof(_ proof: PhoneProof) async throws {
        try await pool.write { db in
            try db.run(
                "INSERT INTO phone_proofs (proof_hash, project_id, phone_number, expires_at) VALUES (?, ?, ?, ?)",
                [Data(proof.proofHash), proof.projectID, proof.phoneNumber, proof.expiresAt.millisecondsSince1970])
        }
    }

    public func consumePhoneProof(proofHash: [UInt8], projectID: String, now: Date) async throws -> String? {
        try await pool.write { db in
            let key = Data(proofHash)
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT phone_number, expires_at FROM phone_proofs WHERE proof_hash = ? AND project_id = ?"
                    ),
                    arguments: [key, projectID])
            else { return nil }
            try db.run("DELETE FROM phone_proofs WHERE proof_hash = ?", [key])
            let expiresAt: Int64 = row[1]
            return now.millisecondsSince1970 < expiresAt ? row[0] as String : nil
        }
    }

    public func user(projectID: String, phoneNumber: String) async throws -> UserRecord? {
        try readNow { db in
            try SQLiteUserRow.fetchOne(db, where: "u.project_id = ? AND u.phone_number = ?", [projectID, phoneNumber])
        }
    }

    // MARK: Development SMS outbox

    public func appendOutbox(_ m: OutboxMessage) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO sms_outbox (project_id, phone_number, code, session_info, text, sent_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [m.projectID, m.phoneNumber, m.code, m.sessionInfo, m.text, m.sentAt.millisecondsSince1970])
        }
    }

    public func outbox(projectID: String) async throws -> [OutboxMessage] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT project_id, phone_number, code, session_info, text, sent_at FROM sms_outbox
                        WHERE project_id = ? ORDER BY id
                        """), arguments: [projectID]
            ).map { r in
                OutboxMessage(
                    projectID: r[0], phoneNumber: r[1], code: r[2], sessionInfo: r[3], text: r[4],
                    sentAt: Date(millisecondsSince1970: r[5]))
            }
        }
    }

    // MARK: Signing keys

    public func signingKeys() async throws -> [StoredSigningKey] {
        try await pool.read { db in try Self.fetchKeys(db) }
    }

    public func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> [StoredSigningKey] {
        try await pool.write { db in
            if try Self.fetchKeys(db).isEmpty { try Self.insertKey(db, key) }
            return try Self.fetchKeys(db)
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try await pool.write { db in try Self.insertKey(db, key) }
    }

    public func retireSigningKey(kid: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                "UPDATE signing_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL",
                [at.millisecondsSince1970, kid])
        }
    }

    public func deleteSigningKey(kid: String) async throws {
        try await pool.write { db in
            try db.run("DELETE FROM signing_keys WHERE kid = ?", [kid])
        }
    }

    // MARK: Counters

    public func incrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        return try await pool.write { db in
            try Int.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO counters (key, window_start, count) VALUES (?, ?, 1)
                        ON CONFLICT (key) DO UPDATE SET
                          count = CASE WHEN counters.window_start = excluded.window_start THEN counters.count + 1 ELSE 1 END,
                          window_start = excluded.window_start
                        RETURNING count
                        """), arguments: [key, start]) ?? 1
        }
    }

    public func counter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        return try readNow { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count FROM counters WHERE key = ? AND window_start = ?"),
                arguments: [key, start]) ?? 0
        }
    }

    public func claimInterval(_ key: String, seconds: Int, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        return try await pool.write { db in
            // The update applies only when the last event is old enough; otherwise nothing is returned.
            try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        INSERT INTO counters (key, window_start, count) VALUES (?, ?, 1)
                        ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = counters.count + 1
                        WHERE counters.window_start <= ?
                        RETURNING window_start
                        """), arguments: [key, nowMs, nowMs - Int64(seconds) * 1000]) != nil
        }
    }

    public func resetCounter(_ key: String) async throws {
        try await pool.write { db in
            try db.run("DELETE FROM counters WHERE key = ?", [key])
        }
    }

    public func decrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws {
        let start = StoreSupport.windowStart(nowMs: now.millisecondsSince1970, windowSeconds: windowSeconds)
        try await pool.write { db in
            try db.run(
                "UPDATE counters SET count = count - 1 WHERE key = ? AND window_start = ? AND count > 0", [key, start])
        }
    }
}

// MARK: - Federated identities

extension SQLiteAuthStore {
    public func user(projectID: String, providerID: String, rawID: String) async throws -> UserRecord? {
        try readNow { db in
            try SQLiteUserRow.fetchOne(
                db,
                where: """
                    u.project_id = ? AND u.uid = (SELECT uid FROM provider_links
                      WHERE project_id = ? AND provider_id = ? AND raw_id = ?)
                    """, [projectID, projectID, providerID, rawID])
        }
    }

    public func user(projectID: String, providerEmail: String) async throws -> UserRecord? {
        try readNow { db in
            try SQLiteUserRow.fetchOne(
                db,
                where: """
                    u.project_id = ? AND u.uid = (SELECT uid FROM provider_links
                      WHERE project_id = ? AND email = ? ORDER BY uid LIMIT 1)
                    """, [projectID, projectID, providerEmail])
        }
    }

    public func claimSingleUse(_ key: String, until: Date, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        return try await pool.write { db in
            try db.run("DELETE FROM single_use_keys WHERE expires_at <= ?", [nowMs])
            // An expired use was just deleted, so a conflict means a live earlier use.
            try db.run(
                "INSERT INTO single_use_keys (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                [key, until.millisecondsSince1970])
            return db.changesCount > 0
        }
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

    /// E-mail, phone number and each provider identity are unique per project.
    static func checkUniqueFields(_ db: Database, _ user: UserRecord) throws {
        if let phone = user.phoneNumber,
            try exists(
                db, "SELECT 1 FROM users WHERE project_id = ? AND phone_number = ? AND uid <> ?",
                [user.projectID, phone, user.uid])
        {
            throw StoreError.phoneNumberExists
        }
        if let email = user.email,
            try exists(
                db, "SELECT 1 FROM users WHERE project_id = ? AND email = ? AND uid <> ?",
                [user.projectID, email, user.uid])
        {
            throw StoreError.emailExists
        }
        for link in user.providers
        where try exists(
            db, "SELECT 1 FROM provider_links WHERE project_id = ? AND provider_id = ? AND raw_id = ? AND uid <> ?",
            [user.projectID, link.providerID, link.rawID, user.uid])
        {
            throw StoreError.federatedIDExists
        }
    }

    static func date(_ ms: Int64?) -> Date? { ms.map(Date.init(millisecondsSince1970:)) }

    /// A family from a row selected with `FamilyColumn.selectList`.
    static func family(from row: Row) -> RefreshTokenFamily {
        var secondFactor: SecondFactorClaim?
        if let factor = row[FamilyColumn.secondFactor] as String?,
            let enrollment = row[FamilyColumn.secondFactorID] as String?
        {
            secondFactor = SecondFactorClaim(factorID: factor, enrollmentID: enrollment)
        }
        return RefreshTokenFamily(
            id: row[FamilyColumn.id], projectID: row[FamilyColumn.projectID], uid: row[FamilyColumn.uid],
            authTime: Date(millisecondsSince1970: row[FamilyColumn.authTime]),
            signInProvider: row[FamilyColumn.signInProvider],
            createdAt: Date(millisecondsSince1970: row[FamilyColumn.createdAt]),
            revokedAt: date(row[FamilyColumn.revokedAt]),
            revokeReason: (row[FamilyColumn.revokeReason] as String?).flatMap(RefreshRevocationReason.init(rawValue:)),
            extraClaims: row[FamilyColumn.extraClaims], secondFactor: secondFactor)
    }

    static func revokeFamilies(
        _ db: Database, projectID: String, uid: String, reason: RefreshRevocationReason, at: Int64
    )
        throws
    {
        try db.run(
            """
            UPDATE refresh_families SET revoked_at = ?, revoke_reason = ?
            WHERE project_id = ? AND uid = ? AND revoked_at IS NULL
            """, [at, reason.rawValue, projectID, uid])
    }

    static func fetchKeys(_ db: Database) throws -> [StoredSigningKey] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM signing_keys ORDER BY activates_at, kid")).map { row in
            StoredSigningKey(
                kid: row["kid"], algorithm: row["algorithm"], privateKey: Array(row["private_key"] as Data),
                encrypted: row["encrypted"], createdAt: Date(millisecondsSince1970: row["created_at"]),
                activatesAt: Date(millisecondsSince1970: row["activates_at"]), retiredAt: date(row["retired_at"]))
        }
    }

    static func insertKey(_ db: Database, _ key: StoredSigningKey) throws {
        try db.run(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key, encrypted, created_at, activates_at, retired_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                key.kid, key.algorithm, Data(key.privateKey), key.encrypted, key.createdAt.millisecondsSince1970,
                key.activatesAt.millisecondsSince1970, key.retiredAt?.millisecondsSince1970,
            ])
    }
}
