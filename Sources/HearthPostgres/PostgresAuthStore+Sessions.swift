import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `SessionStore` on PostgreSQL: refresh-token families, and the group commit of their rotation below.
extension PostgresAuthStore {
    public func insertRefreshFamily(_ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws {
        try await transaction { db in try await Self.insertRefreshFamily(db, family, tokenHash: tokenHash) }
    }

    /// A new session inside the caller's transaction.
    static func insertRefreshFamily(_ db: Transaction, _ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws {
        try await db.run(
            """
            INSERT INTO refresh_families (id, project_id, uid, auth_time, sign_in_provider, created_at, extra_claims,
              second_factor, second_factor_id, ip_prefix, user_agent)
            VALUES (\(family.id), \(family.projectID), \(family.uid), \(family.authTime.millisecondsSince1970),
              \(family.signInProvider), \(family.createdAt.millisecondsSince1970), \(family.extraClaims),
              \(family.secondFactor?.factorID), \(family.secondFactor?.enrollmentID), \(family.ipPrefix),
              \(family.userAgent))
            """)
        try await db.run(
            """
            INSERT INTO refresh_tokens (family_id, generation, hash, issued_at)
            VALUES (\(family.id), 0, \(Data(tokenHash)), \(family.createdAt.millisecondsSince1970))
            """)
    }

    public func refreshTokenKey(legacyHash: [UInt8]) async throws -> RefreshTokenKey? {
        try await query("SELECT family_id, generation FROM legacy_refresh_tokens WHERE hash = \(Data(legacyHash))")
            .first.map { row in
                let row = row.makeRandomAccess()
                return RefreshTokenKey(
                    familyID: try row["family_id"].decode(String.self),
                    generation: try row["generation"].decode(Int64.self))
            }
    }

    public func revokeRefreshFamilies(projectID: String, uid: String, reason: RefreshRevocationReason, at: Date)
        async throws
    {
        try await transaction { db in
            try await Self.revokeFamilies(db, projectID: projectID, uid: uid, reason: reason, at: at)
        }
    }

    // Single statements through `query`, not `transaction`: they change no user, so the change stamp stays.
    public func sessions(projectID: String, uid: String) async throws -> [SessionSummary] {
        var sessions: [SessionSummary] = []
        for row in try await query(
            """
            SELECT f.id, f.sign_in_provider, f.created_at, f.ip_prefix, f.user_agent,
              (SELECT MAX(COALESCE(t.rotated_at, t.issued_at)) FROM refresh_tokens t WHERE t.family_id = f.id)
                AS last_used_at
            FROM refresh_families f
            WHERE f.project_id = \(projectID) AND f.uid = \(uid) AND f.revoked_at IS NULL
            ORDER BY f.created_at, f.id
            """)
        {
            let row = row.makeRandomAccess()
            let created = try row["created_at"].decode(Int64.self)
            let lastUsed = try row["last_used_at"].decode(Int64?.self) ?? created
            sessions.append(
                SessionSummary(
                    sessionID: try row["id"].decode(String.self),
                    signInProvider: try row["sign_in_provider"].decode(String.self),
                    createdAt: Date(millisecondsSince1970: created),
                    lastUsedAt: Date(millisecondsSince1970: max(created, lastUsed)),
                    ipPrefix: try row["ip_prefix"].decode(String?.self),
                    userAgent: try row["user_agent"].decode(String?.self)))
        }
        return sessions
    }

    public func revokeRefreshFamily(
        projectID: String, uid: String, familyID: String, reason: RefreshRevocationReason, at: Date
    ) async throws -> Bool {
        try await query(
            """
            UPDATE refresh_families SET revoked_at = \(at.millisecondsSince1970), revoke_reason = \(reason.rawValue)
            WHERE id = \(familyID) AND project_id = \(projectID) AND uid = \(uid) AND revoked_at IS NULL
            RETURNING 1
            """).count == 1
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
            // The hashes of `hrt1_` tokens whose rows are gone.
            try await db.run(
                """
                DELETE FROM legacy_refresh_tokens l
                WHERE NOT EXISTS (
                  SELECT 1 FROM refresh_tokens t WHERE t.family_id = l.family_id AND t.generation = l.generation)
                """)
            return rotated + orphaned
        }
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
            secondFactor: try secondFactor(row),
            ipPrefix: try row["ip_prefix"].decode(String?.self),
            userAgent: try row["user_agent"].decode(String?.self))
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
}

/// Group commit for refresh-token rotation, as on SQLite: the rotations of concurrent refreshes are applied in one
/// statement and one transaction (`RotateRefreshTokens`), and each is answered only after it has committed, so an
/// answered refresh survives `kill -9`.
///
/// One statement per refresh cost a pooled connection, a round trip and a commit each, on the cores that sign the
/// tokens; batched, those fixed costs are shared. One batch is written at a time; what arrives meanwhile is the next
/// batch. Two uses of one token never share a batch (the later waits for the next), so they are applied one after
/// the other, as they would be in two transactions. Another server's batch may hold the same tokens at once: the
/// row locks order the two (the later sees the first's commit), and both lock in key order, so they cannot
/// deadlock over them.
extension PostgresAuthStore {
    public func rotateRefreshToken(_ r: RefreshRotation) async throws -> RefreshRotationOutcome {
        try await withCheckedThrowingContinuation { answer in
            if rotations.enqueue(r, answer: answer) { Task { await self.writeRotations() } }
        }
    }

    /// Writes what is waiting, then what arrived meanwhile, until nothing is left.
    private func writeRotations() async {
        while true {
            let batch = rotations.nextBatch()
            if batch.isEmpty { return }
            let outcomes = await rotate(batch.map(\.item))
            for (waiting, outcome) in zip(batch, outcomes) { waiting.resume(with: outcome) }
        }
    }

    /// Applies `batch` in one transaction; the outcome of each rotation, in order.
    func rotate(_ batch: [RefreshRotation]) async -> [Result<RefreshRotationOutcome, any Error>] {
        do {
            var presented: [Int64: PostgresRandomAccessRow] = [:]
            for row in try await execute(RotateRefreshTokens(rotations: batch)) {
                let row = row.makeRandomAccess()
                presented[try row["ord"].decode(Int64.self)] = row
            }
            return batch.enumerated().map { index, rotation in
                Result { try Self.outcome(of: rotation, presented: presented[Int64(index + 1)]) }
            }
        } catch {
            // The batch failed as a whole and changed nothing (a deadlock with another server's batch, say): each
            // rotation again on its own, so that only a failing one fails.
            guard batch.count > 1, !(error is StoreUnavailable) else { return batch.map { _ in .failure(error) } }
            var outcomes: [Result<RefreshRotationOutcome, any Error>] = []
            for rotation in batch { outcomes += await rotate([rotation]) }
            return outcomes
        }
    }

    /// The rule's outcome for `rotation` on the row the statement locked for it (nil: no such token in the project),
    /// after checking that the statement decided (and so wrote) what the rule decides.
    static func outcome(of rotation: RefreshRotation, presented row: PostgresRandomAccessRow?) throws
        -> RefreshRotationOutcome
    {
        let presented = try row.map { row in
            PresentedRefreshToken(
                family: try family(from: row), rotatedAtMilliseconds: try row["rotated_at"].decode(Int64?.self),
                sealedSuccessor: try row["sealed_successor"].decode(Data?.self).map(Array.init))
        }
        let outcome = rotation.outcome(for: presented)
        let written = try row.map { try $0["decision"].decode(String.self) } ?? RefreshRotationDecision.unknown.rawValue
        guard written == outcome.decision.rawValue else {
            throw RotationRuleMismatch(statement: written, rule: outcome.decision)
        }
        return outcome
    }
}

/// The rotation statement decided otherwise than `RefreshRotation.decision(for:)`: a defect in one of the two,
/// answered as an internal error rather than with an outcome that does not match what was written.
struct RotationRuleMismatch: Error, CustomStringConvertible {
    let statement: String
    let rule: RefreshRotationDecision

    var description: String {
        "the refresh rotation statement decided \(statement) where the rule decides \(rule.rawValue)"
    }
}
