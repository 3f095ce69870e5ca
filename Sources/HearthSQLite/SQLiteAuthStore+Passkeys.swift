import Foundation
import GRDB
import HearthCore
import HearthStore

/// `OneTimeCodeStore`'s passkey challenges on SQLite (the credentials themselves are the user's: `+Users`).
extension SQLiteAuthStore {
    public func insertPasskeyChallenge(_ c: PasskeyChallenge) async throws {
        try await pool.write { db in
            // Expired challenges are never answered; forgetting them here keeps the table small without a sweeper.
            try db.run("DELETE FROM passkey_challenges WHERE expires_at <= ?", [c.createdAt.millisecondsSince1970])
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
        try await pool.write { db in
            // The single writer makes read-then-delete atomic: of two finalizes of one challenge, one gets it.
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            DELETE FROM passkey_challenges
                            WHERE challenge_hash = ? AND project_id = ? AND expires_at > ?
                            RETURNING purpose, uid, user_handle, created_at, expires_at
                            """), arguments: [Data(hash), projectID, now.millisecondsSince1970]),
                let purpose = PasskeyChallenge.Purpose(rawValue: row["purpose"])
            else { return nil }
            return PasskeyChallenge(
                challengeHash: hash, projectID: projectID, purpose: purpose, uid: row["uid"],
                userHandle: (row["user_handle"] as Data?).map { Array($0) },
                createdAt: Date(millisecondsSince1970: row["created_at"]),
                expiresAt: Date(millisecondsSince1970: row["expires_at"]))
        }
    }
}
