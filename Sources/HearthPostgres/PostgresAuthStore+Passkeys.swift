import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `OneTimeCodeStore`'s passkey challenges on PostgreSQL (the credentials themselves are the user's: `+Users`).
extension PostgresAuthStore {
    public func insertPasskeyChallenge(_ c: PasskeyChallenge) async throws {
        // Expired challenges are never answered; forgetting them here keeps the table small without a sweeper.
        try await query("DELETE FROM passkey_challenges WHERE expires_at <= \(c.createdAt.millisecondsSince1970)")
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
        // DELETE … RETURNING takes the row once: of two servers finalizing one challenge, only one gets it back.
        guard
            let row = try await query(
                """
                DELETE FROM passkey_challenges
                WHERE challenge_hash = \(Data(hash)) AND project_id = \(projectID)
                  AND expires_at > \(now.millisecondsSince1970)
                RETURNING purpose, uid, user_handle, created_at, expires_at
                """
            ).first?.makeRandomAccess(),
            let purpose = PasskeyChallenge.Purpose(rawValue: try row["purpose"].decode(String.self))
        else { return nil }
        return PasskeyChallenge(
            challengeHash: hash, projectID: projectID, purpose: purpose, uid: try row["uid"].decode(String?.self),
            userHandle: try row["user_handle"].decode(Data?.self).map { Array($0) },
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            expiresAt: Date(millisecondsSince1970: try row["expires_at"].decode(Int64.self)))
    }
}
