import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `OneTimeCodeStore`'s passkey challenges on PostgreSQL, and `UserStore`'s passkey sign-in that takes one (the
/// credentials themselves are the user's: `+Users`).
extension PostgresAuthStore {
    public func insertPasskeyChallenge(_ c: PasskeyChallenge) async throws {
        // Expired challenges are never answered; forgetting them here keeps the table small without a sweeper.
        // Keys begin with the time of issue, so they are the range before the oldest a live one may have.
        try await query(
            """
            DELETE FROM passkey_challenges
            WHERE challenge_hash < \(Data(PasskeyChallenge.expiredKeysEnd(at: c.createdAt)))
              AND expires_at <= \(c.createdAt.millisecondsSince1970)
            """)
        try await query(
            """
            INSERT INTO passkey_challenges (challenge_hash, project_id, purpose, uid, user_handle, created_at, expires_at)
            VALUES (\(Data(c.challengeHash)), \(c.projectID), \(c.purpose.rawValue), \(c.uid),
              \(c.userHandle.map { Data($0) }), \(c.createdAt.millisecondsSince1970), \(c.expiresAt.millisecondsSince1970))
            """)
    }

    public func consumePasskeyChallenge(hash: [UInt8], projectID: String, now: Date) async throws
        -> PasskeyChallenge?
    {
        try Self.passkeyChallenge(
            try await query(try Self.takePasskeyChallenge(hash: hash, projectID: projectID, now: now)).first,
            hash: hash, projectID: projectID)
    }

    public func passkeyChallenge(hash: [UInt8], projectID: String, now: Date) async throws -> PasskeyChallenge? {
        try Self.passkeyChallenge(
            try await query(
                """
                SELECT purpose, uid, user_handle, created_at, expires_at FROM passkey_challenges
                WHERE challenge_hash = \(Data(hash)) AND project_id = \(projectID)
                  AND expires_at > \(now.millisecondsSince1970)
                """
            ).first, hash: hash, projectID: projectID)
    }

    public func recordPasskeySignIn(_ s: PasskeySignIn) async throws -> Bool {
        try await transaction { db in
            // The DELETE waits for a concurrent transaction holding the row and then finds it gone: one wins.
            guard
                try Self.passkeyChallenge(
                    try await db.run(try Self.takePasskeyChallenge(hash: s.challengeHash, projectID: s.projectID, now: s.at))
                        .first, hash: s.challengeHash, projectID: s.projectID)?.purpose == .signIn
            else { return false }
            try await db.run(
                try Self.recordPasskeyUse(
                    projectID: s.projectID, uid: s.uid, credentialID: s.credentialID, signCount: s.signCount,
                    backupEligible: s.backupEligible, backedUp: s.backedUp, at: s.at))
            if let session = s.session {
                try await Self.insertRefreshFamily(db, session.family, tokenHash: session.tokenHash)
                try await db.run(Self.recordSignIn(projectID: s.projectID, uid: s.uid, at: s.at))
            }
            return true
        }
    }

    /// DELETE … RETURNING takes the row once: of two servers finalizing one challenge, only one gets it back.
    private static func takePasskeyChallenge(hash: [UInt8], projectID: String, now: Date) throws -> PostgresQuery {
        try """
        DELETE FROM passkey_challenges
        WHERE challenge_hash = \(Data(hash)) AND project_id = \(projectID) AND expires_at > \(now.millisecondsSince1970)
        RETURNING purpose, uid, user_handle, created_at, expires_at
        """
    }

    private static func passkeyChallenge(_ row: PostgresRow?, hash: [UInt8], projectID: String) throws
        -> PasskeyChallenge?
    {
        guard let row = row?.makeRandomAccess(),
            let purpose = PasskeyChallenge.Purpose(rawValue: try row["purpose"].decode(String.self))
        else { return nil }
        return PasskeyChallenge(
            challengeHash: hash, projectID: projectID, purpose: purpose, uid: try row["uid"].decode(String?.self),
            userHandle: try row["user_handle"].decode(Data?.self).map { Array($0) },
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            expiresAt: Date(millisecondsSince1970: try row["expires_at"].decode(Int64.self)))
    }
}
