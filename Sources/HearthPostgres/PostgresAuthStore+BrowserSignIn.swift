import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresAuthStore {
    // MARK: Browser sign-in

    public func insertPendingAuthorization(_ p: PendingAuthorization) async throws {
        // Abandoned sign-ins are never used again; forgetting them here keeps the table small without a sweeper.
        try await query("DELETE FROM oauth_pending WHERE expires_at <= \(p.createdAt.millisecondsSince1970)")
        try await query(
            """
            INSERT INTO oauth_pending (state_hash, project_id, provider_id, session_hash, redirect_url, callback_url,
              sealed_verifier, nonce, created_at, expires_at)
            VALUES (\(Data(p.stateHash)), \(p.projectID), \(p.providerID), \(p.sessionHash), \(p.redirectURL),
              \(p.callbackURL), \(Data(p.sealedVerifier)), \(p.nonce), \(p.createdAt.millisecondsSince1970),
              \(p.expiresAt.millisecondsSince1970))
            """)
    }

    public func pendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization? {
        try await query(
            """
            SELECT * FROM oauth_pending
            WHERE state_hash = \(Data(stateHash)) AND expires_at > \(now.millisecondsSince1970)
            """
        ).first.map(Self.authorization)
    }

    public func consumePendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization? {
        // DELETE … RETURNING takes the row once: of two concurrent exchanges only one gets it back.
        try await query(
            """
            DELETE FROM oauth_pending
            WHERE state_hash = \(Data(stateHash)) AND expires_at > \(now.millisecondsSince1970)
            RETURNING *
            """
        ).first.map(Self.authorization)
    }

    static func authorization(from row: PostgresRow) throws -> PendingAuthorization {
        let r = row.makeRandomAccess()
        return PendingAuthorization(
            stateHash: Array(try r["state_hash"].decode(Data.self)), projectID: try r["project_id"].decode(String.self),
            providerID: try r["provider_id"].decode(String.self),
            sessionHash: try r["session_hash"].decode(String.self),
            redirectURL: try r["redirect_url"].decode(String.self),
            callbackURL: try r["callback_url"].decode(String.self),
            sealedVerifier: Array(try r["sealed_verifier"].decode(Data.self)),
            nonce: try r["nonce"].decode(String?.self),
            createdAt: Date(millisecondsSince1970: try r["created_at"].decode(Int64.self)),
            expiresAt: Date(millisecondsSince1970: try r["expires_at"].decode(Int64.self)))
    }
}
