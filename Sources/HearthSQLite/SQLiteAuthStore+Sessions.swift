import Foundation
import GRDB
import HearthCore
import HearthStore

/// `SessionStore` on SQLite: refresh-token families, and their rotation (`RefreshRotation.decision(for:)`) in the
/// batches of `WriteBatcher`.
extension SQLiteAuthStore {
    public func insertRefreshFamily(_ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws {
        try await pool.write { db in try Self.insertRefreshFamily(db, family, tokenHash: tokenHash) }
    }

    /// A new session inside the caller's write transaction.
    static func insertRefreshFamily(_ db: Database, _ family: RefreshTokenFamily, tokenHash: [UInt8]) throws {
        try db.run(
            """
            INSERT INTO refresh_families (id, project_id, uid, auth_time, sign_in_provider, created_at, extra_claims,
              second_factor, second_factor_id, ip_prefix, user_agent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                family.id, family.projectID, family.uid, family.authTime.millisecondsSince1970,
                family.signInProvider, family.createdAt.millisecondsSince1970, family.extraClaims,
                family.secondFactor?.factorID, family.secondFactor?.enrollmentID, family.ipPrefix, family.userAgent,
            ])
        try db.run(
            "INSERT INTO refresh_tokens (family_id, generation, hash, issued_at) VALUES (?, 0, ?, ?)",
            [family.id, Data(tokenHash), family.createdAt.millisecondsSince1970])
    }

    public func refreshTokenKey(legacyHash: [UInt8]) async throws -> RefreshTokenKey? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT family_id, generation FROM legacy_refresh_tokens WHERE hash = ?",
                arguments: [Data(legacyHash)]
            ).map { RefreshTokenKey(familyID: $0["family_id"], generation: $0["generation"]) }
        }
    }

    public func rotateRefreshToken(_ r: RefreshRotation) async throws -> RefreshRotationOutcome {
        try await rotations.write(r)
    }

    /// One rotation inside the caller's write transaction (`WriteBatcher` runs a batch of them in one): the
    /// presented token's row under the writer's lock, the rule's decision (`RefreshRotation.outcome(for:)`), and
    /// the writes it calls for.
    static func rotate(_ db: Database, _ r: RefreshRotation) throws -> RefreshRotationOutcome {
        let outcome = r.outcome(for: try presentedToken(db, r))
        let nowMs = r.now.millisecondsSince1970
        switch outcome {
        case .rotated:
            let successor = r.presented.successor
            try db.run(
                "UPDATE refresh_tokens SET rotated_at = ?, sealed_successor = ? WHERE family_id = ? AND generation = ?",
                [nowMs, Data(r.sealedSuccessor), r.presented.familyID, r.presented.generation])
            try db.run(
                "INSERT INTO refresh_tokens (family_id, generation, hash, issued_at) VALUES (?, ?, ?, ?)",
                [successor.familyID, successor.generation, Data(r.successorHash), nowMs])
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
        case ipPrefix = "ip_prefix", userAgent = "user_agent"
        static let positions = positionTable()
    }

    /// The presented token's own columns of `refresh_tokens`, after its family's.
    enum PresentedTokenColumn: String, SQLiteColumn {
        case rotatedAt = "rotated_at", sealedSuccessor = "sealed_successor"
        static var offset: Int { FamilyColumn.allCases.count }
        static let positions = positionTable()
    }

    /// The presented token's row and its family, when the token at its key has its hash and belongs to the project or
    /// one of its tenants.
    static func presentedToken(_ db: Database, _ r: RefreshRotation) throws -> PresentedRefreshToken? {
        // Read from the statement's own row, not a copy: this runs inside the writer's batch, once per refresh. The
        // cursor resets the statement when it goes, so it is kept until the row has been read.
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: presentedTokenSQL),
            arguments: [
                r.presented.familyID, r.presented.generation, Data(r.presentedHash), r.projectID, r.tenantPrefix,
                StoreSupport.prefixEnd(r.tenantPrefix),
            ])
        return try withExtendedLifetime(rows) {
            guard let row = try rows.next() else { return nil }
            return PresentedRefreshToken(
                family: family(from: row), rotatedAtMilliseconds: row[PresentedTokenColumn.rotatedAt],
                sealedSuccessor: (row[PresentedTokenColumn.sealedSuccessor] as Data?).map(Array.init))
        }
    }

    /// `presentedToken`'s statement, written once: it is also the statement cache's key.
    private static let presentedTokenSQL = """
        SELECT \(FamilyColumn.selectList("f")), \(PresentedTokenColumn.selectList("t"))
        FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
        WHERE t.family_id = ? AND t.generation = ? AND t.hash = ?
          AND (f.project_id = ? OR (f.project_id >= ? AND f.project_id < ?))
        """

    public func revokeRefreshFamilies(projectID: String, uid: String, reason: RefreshRevocationReason, at: Date)
        async throws
    {
        try await pool.write { db in
            try Self.revokeFamilies(db, projectID: projectID, uid: uid, reason: reason, at: at.millisecondsSince1970)
        }
    }

    public func sessions(projectID: String, uid: String) async throws -> [SessionSummary] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.id, f.sign_in_provider, f.created_at, f.ip_prefix, f.user_agent,
                      (SELECT MAX(COALESCE(t.rotated_at, t.issued_at)) FROM refresh_tokens t WHERE t.family_id = f.id)
                        AS last_used_at
                    FROM refresh_families f
                    WHERE f.project_id = ? AND f.uid = ? AND f.revoked_at IS NULL
                    ORDER BY f.created_at, f.id
                    """, arguments: [projectID, uid]
            ).map { row in
                let created: Int64 = row["created_at"]
                return SessionSummary(
                    sessionID: row["id"], signInProvider: row["sign_in_provider"],
                    createdAt: Date(millisecondsSince1970: created),
                    lastUsedAt: Date(millisecondsSince1970: max(created, row["last_used_at"] as Int64? ?? created)),
                    ipPrefix: row["ip_prefix"], userAgent: row["user_agent"])
            }
        }
    }

    public func revokeRefreshFamily(
        projectID: String, uid: String, familyID: String, reason: RefreshRevocationReason, at: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try db.run(
                """
                UPDATE refresh_families SET revoked_at = ?, revoke_reason = ?
                WHERE id = ? AND project_id = ? AND uid = ? AND revoked_at IS NULL
                """, [at.millisecondsSince1970, reason.rawValue, familyID, projectID, uid])
            return db.changesCount == 1
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
            try db.run(Self.forgetPurgedLegacyTokens)
            return deleted
        }
    }

    /// Drops the hashes of `hrt1_` tokens whose rows are gone.
    static let forgetPurgedLegacyTokens = """
        DELETE FROM legacy_refresh_tokens
        WHERE NOT EXISTS (
          SELECT 1 FROM refresh_tokens t
          WHERE t.family_id = legacy_refresh_tokens.family_id AND t.generation = legacy_refresh_tokens.generation)
        """

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
            extraClaims: row[FamilyColumn.extraClaims], secondFactor: secondFactor,
            ipPrefix: row[FamilyColumn.ipPrefix], userAgent: row[FamilyColumn.userAgent])
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
}
