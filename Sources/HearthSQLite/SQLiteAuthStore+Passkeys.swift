import Foundation
import GRDB
import HearthCore
import HearthStore

/// `OneTimeCodeStore`'s passkey challenges on SQLite, and `UserStore`'s passkey sign-in that takes one (the
/// credentials themselves are the user's: `+Users`).
extension SQLiteAuthStore {
    public func insertPasskeyChallenge(_ c: PasskeyChallenge) async throws {
        try await pool.write { db in
            // Expired challenges are never answered; forgetting them here keeps the table small without a sweeper.
            // Keys begin with the time of issue, so they are the range before the oldest a live one may have.
            try db.run(
                "DELETE FROM passkey_challenges WHERE challenge_hash < ? AND expires_at <= ?",
                [Data(PasskeyChallenge.expiredKeysEnd(at: c.createdAt)), c.createdAt.millisecondsSince1970])
            try db.run(
                """
                INSERT INTO passkey_challenges (challenge_hash, project_id, purpose, uid, user_handle, created_at,
                  expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    Data(c.challengeHash), c.projectID, c.purpose.rawValue, c.uid, c.userHandle.map { Data($0) },
                    c.createdAt.millisecondsSince1970, c.expiresAt.millisecondsSince1970,
                ])
        }
    }

    public func consumePasskeyChallenge(hash: [UInt8], projectID: String, now: Date) async throws
        -> PasskeyChallenge?
    {
        // The single writer makes read-then-delete atomic: of two finalizes of one challenge, one gets it.
        try await pool.write { db in try Self.takePasskeyChallenge(db, hash: hash, projectID: projectID, now: now) }
    }

    public func passkeyChallenge(hash: [UInt8], projectID: String, now: Date) async throws -> PasskeyChallenge? {
        try await pointRead { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT purpose, uid, user_handle, created_at, expires_at FROM passkey_challenges
                        WHERE challenge_hash = ? AND project_id = ? AND expires_at > ?
                        """), arguments: [Data(hash), projectID, now.millisecondsSince1970]
            ).flatMap { Self.passkeyChallenge($0, hash: hash, projectID: projectID) }
        }
    }

    public func recordPasskeySignIn(_ s: PasskeySignIn) async throws -> Bool {
        try await passkeySignIns.write(s)
    }

    /// One sign-in's writes inside the caller's write transaction (`WriteBatcher` runs a batch of them in one).
    static func recordPasskeySignIn(_ db: Database, _ s: PasskeySignIn) throws -> Bool {
        guard
            try takePasskeyChallenge(db, hash: s.challengeHash, projectID: s.projectID, now: s.at)?.purpose == .signIn
        else { return false }
        _ = try recordPasskeyUse(
            db, projectID: s.projectID, uid: s.uid, credentialID: s.credentialID, signCount: s.signCount,
            backupEligible: s.backupEligible, backedUp: s.backedUp, at: s.at)
        if let session = s.session {
            try insertRefreshFamily(db, session.family, tokenHash: session.tokenHash)
            try recordSignIn(db, projectID: s.projectID, uid: s.uid, at: s.at)
        }
        return true
    }

    /// Deletes the live challenge and returns it, inside the caller's write transaction.
    private static func takePasskeyChallenge(_ db: Database, hash: [UInt8], projectID: String, now: Date) throws
        -> PasskeyChallenge?
    {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    DELETE FROM passkey_challenges
                    WHERE challenge_hash = ? AND project_id = ? AND expires_at > ?
                    RETURNING purpose, uid, user_handle, created_at, expires_at
                    """), arguments: [Data(hash), projectID, now.millisecondsSince1970]
        ).flatMap { passkeyChallenge($0, hash: hash, projectID: projectID) }
    }

    private static func passkeyChallenge(_ row: Row, hash: [UInt8], projectID: String) -> PasskeyChallenge? {
        guard let purpose = PasskeyChallenge.Purpose(rawValue: row["purpose"]) else { return nil }
        return PasskeyChallenge(
            challengeHash: hash, projectID: projectID, purpose: purpose, uid: row["uid"],
            userHandle: (row["user_handle"] as Data?).map { Array($0) },
            createdAt: Date(millisecondsSince1970: row["created_at"]),
            expiresAt: Date(millisecondsSince1970: row["expires_at"]))
    }
}
