import Foundation
import GRDB
import HearthCore
import HearthStore

extension SQLiteAuthStore {
    // MARK: Second factors

    public func insertPendingSecondFactor(_ p: PendingSecondFactor) async throws {
        try await pool.write { db in
            // Expired steps are never used again; forgetting them here keeps the table small without a sweeper.
            try db.run("DELETE FROM mfa_pending WHERE expires_at <= ?", [p.createdAt.millisecondsSince1970])
            try db.run(
                """
                INSERT INTO mfa_pending (credential_hash, project_id, uid, purpose, first_factor, totp_secret,
                  created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    Data(p.credentialHash), p.projectID, p.uid, p.purpose.rawValue, p.firstFactor, p.totpSecret,
                    p.createdAt.millisecondsSince1970, p.expiresAt.millisecondsSince1970,
                ])
        }
    }

    public func pendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws -> PendingSecondFactor? {
        try await pool.read { db in try Self.fetchPending(db, hash: hash, projectID: projectID, now: now) }
    }

    public func consumePendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws
        -> PendingSecondFactor?
    {
        try await pool.write { db in
            guard let pending = try Self.fetchPending(db, hash: hash, projectID: projectID, now: now) else {
                return nil
            }
            try db.run("DELETE FROM mfa_pending WHERE credential_hash = ?", [Data(hash)])
            return pending
        }
    }

    static func fetchPending(_ db: Database, hash: [UInt8], projectID: String, now: Date) throws
        -> PendingSecondFactor?
    {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT uid, purpose, first_factor, totp_secret, created_at, expires_at FROM mfa_pending
                        WHERE credential_hash = ? AND project_id = ? AND expires_at > ?
                        """), arguments: [Data(hash), projectID, now.millisecondsSince1970]),
            let purpose = PendingSecondFactor.Purpose(rawValue: row["purpose"])
        else { return nil }
        return PendingSecondFactor(
            credentialHash: hash, projectID: projectID, uid: row["uid"], purpose: purpose,
            firstFactor: row["first_factor"], totpSecret: row["totp_secret"],
            createdAt: Date(millisecondsSince1970: row["created_at"]),
            expiresAt: Date(millisecondsSince1970: row["expires_at"]))
    }
}
