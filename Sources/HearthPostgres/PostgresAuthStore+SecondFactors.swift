import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresAuthStore {
    // MARK: Second factors

    public func insertPendingSecondFactor(_ p: PendingSecondFactor) async throws {
        // Expired steps are never used again; forgetting them here keeps the table small without a sweeper.
        try await query("DELETE FROM mfa_pending WHERE expires_at <= \(p.createdAt.millisecondsSince1970)")
        try await query(
            """
            INSERT INTO mfa_pending (credential_hash, project_id, uid, purpose, first_factor, totp_secret,
              created_at, expires_at)
            VALUES (\(Data(p.credentialHash)), \(p.projectID), \(p.uid), \(p.purpose.rawValue), \(p.firstFactor),
              \(p.totpSecret), \(p.createdAt.millisecondsSince1970), \(p.expiresAt.millisecondsSince1970))
            """)
    }

    public func pendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws -> PendingSecondFactor? {
        try await query(
            """
            SELECT * FROM mfa_pending
            WHERE credential_hash = \(Data(hash)) AND project_id = \(projectID)
              AND expires_at > \(now.millisecondsSince1970)
            """
        ).first.flatMap(Self.pending)
    }

    public func consumePendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws
        -> PendingSecondFactor?
    {
        // DELETE … RETURNING takes the row once: of two concurrent uses only one gets it back.
        try await query(
            """
            DELETE FROM mfa_pending
            WHERE credential_hash = \(Data(hash)) AND project_id = \(projectID)
              AND expires_at > \(now.millisecondsSince1970)
            RETURNING *
            """
        ).first.flatMap(Self.pending)
    }

    static func pending(from row: PostgresRow) throws -> PendingSecondFactor? {
        let r = row.makeRandomAccess()
        guard let purpose = PendingSecondFactor.Purpose(rawValue: try r["purpose"].decode(String.self)) else {
            return nil
        }
        return PendingSecondFactor(
            credentialHash: Array(try r["credential_hash"].decode(Data.self)),
            projectID: try r["project_id"].decode(String.self), uid: try r["uid"].decode(String.self),
            purpose: purpose, firstFactor: try r["first_factor"].decode(String.self),
            totpSecret: try r["totp_secret"].decode(String?.self),
            createdAt: Date(millisecondsSince1970: try r["created_at"].decode(Int64.self)),
            expiresAt: Date(millisecondsSince1970: try r["expires_at"].decode(Int64.self)))
    }
}
