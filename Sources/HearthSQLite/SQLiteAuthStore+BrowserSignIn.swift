import Foundation
import GRDB
import HearthCore
import HearthStore

extension SQLiteAuthStore {
    // MARK: Browser sign-in

    public func insertPendingAuthorization(_ p: PendingAuthorization) async throws {
        try await pool.write { db in
            // Abandoned sign-ins are never used again; forgetting them here keeps the table small without a sweeper.
            try db.run("DELETE FROM oauth_pending WHERE expires_at <= ?", [p.createdAt.millisecondsSince1970])
            try db.run(
                """
                INSERT INTO oauth_pending (state_hash, project_id, provider_id, session_hash, redirect_url,
                  callback_url, sealed_verifier, nonce, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    Data(p.stateHash), p.projectID, p.providerID, p.sessionHash, p.redirectURL, p.callbackURL,
                    Data(p.sealedVerifier), p.nonce, p.createdAt.millisecondsSince1970,
                    p.expiresAt.millisecondsSince1970,
                ])
        }
    }

    public func pendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization? {
        try await pool.read { db in try Self.fetchAuthorization(db, stateHash: stateHash, now: now) }
    }

    public func consumePendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization? {
        try await pool.write { db in
            guard let pending = try Self.fetchAuthorization(db, stateHash: stateHash, now: now) else { return nil }
            try db.run("DELETE FROM oauth_pending WHERE state_hash = ?", [Data(stateHash)])
            return pending
        }
    }

    static func fetchAuthorization(_ db: Database, stateHash: [UInt8], now: Date) throws -> PendingAuthorization? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT project_id, provider_id, session_hash, redirect_url, callback_url, sealed_verifier, nonce,
                      created_at, expires_at
                    FROM oauth_pending WHERE state_hash = ? AND expires_at > ?
                    """, arguments: [Data(stateHash), now.millisecondsSince1970])
        else { return nil }
        let sealed: Data = row["sealed_verifier"]
        return PendingAuthorization(
            stateHash: stateHash, projectID: row["project_id"], providerID: row["provider_id"],
            sessionHash: row["session_hash"], redirectURL: row["redirect_url"], callbackURL: row["callback_url"],
            sealedVerifier: Array(sealed), nonce: row["nonce"], createdAt: Date(millisecondsSince1970: row["created_at"]),
            expiresAt: Date(millisecondsSince1970: row["expires_at"]))
    }
}
