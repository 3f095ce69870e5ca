import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `OneTimeCodeStore` on PostgreSQL: phone codes and proofs, e-mail action codes, single-use keys, the development
/// outboxes. Pending sign-ins are in `+SecondFactors` and `+BrowserSignIn`.
extension PostgresAuthStore {
    public func insertPhoneVerification(_ v: PhoneVerification) async throws {
        try await query(
            """
            INSERT INTO phone_verifications (session_hash, project_id, phone_number, code_hash, created_at, expires_at)
            VALUES (\(Data(v.sessionHash)), \(v.projectID), \(v.phoneNumber), \(Data(v.codeHash)),
              \(v.createdAt.millisecondsSince1970), \(v.expiresAt.millisecondsSince1970))
            """)
    }

    public func attemptPhoneCode(sessionHash: [UInt8], codeHash: [UInt8], maxAttempts: Int, now: Date) async throws
        -> PhoneCodeOutcome
    {
        let key = Data(sessionHash)
        return try await transaction { db in
            // Locking the session row makes concurrent attempts queue here; each later one re-reads the row
            // after the earlier commit, so it sees the counted attempt or finds the session gone.
            let rows = try await db.run(
                """
                SELECT phone_number, code_hash, attempts, expires_at FROM phone_verifications
                WHERE session_hash = \(key)
                FOR UPDATE
                """)
            guard let row = rows.first else { return .unknown }
            let (phone, expected, attempts, expiresAt) = try row.decode((String, Data, Int, Int64).self)
            if now.millisecondsSince1970 >= expiresAt {
                try await db.run("DELETE FROM phone_verifications WHERE session_hash = \(key)")
                return .expired
            }
            if ConstantTime.equals(Array(expected), codeHash) {
                try await db.run("DELETE FROM phone_verifications WHERE session_hash = \(key)")
                return .verified(phoneNumber: phone)
            }
            let remaining = maxAttempts - attempts - 1
            if remaining <= 0 {
                try await db.run("DELETE FROM phone_verifications WHERE session_hash = \(key)")
            } else {
                try await db.run("UPDATE phone_verifications SET attempts = attempts + 1 WHERE session_hash = \(key)")
            }
            return .wrongCode(phoneNumber: phone, remaining: max(remaining, 0))
        }
    }

    public func phoneVerificationIsLive(sessionHash: [UInt8], now: Date) async throws -> Bool {
        try await !query(
            """
            SELECT 1 FROM phone_verifications
            WHERE session_hash = \(Data(sessionHash)) AND expires_at > \(now.millisecondsSince1970)
            """
        ).isEmpty
    }

    public func deletePhoneVerification(sessionHash: [UInt8]) async throws {
        try await query("DELETE FROM phone_verifications WHERE session_hash = \(Data(sessionHash))")
    }

    public func insertPhoneProof(_ proof: PhoneProof) async throws {
        try await query(
            """
            INSERT INTO phone_proofs (proof_hash, project_id, phone_number, expires_at)
            VALUES (\(Data(proof.proofHash)), \(proof.projectID), \(proof.phoneNumber),
              \(proof.expiresAt.millisecondsSince1970))
            """)
    }

    public func consumePhoneProof(proofHash: [UInt8], projectID: String, now: Date) async throws -> String? {
        // One statement: of concurrent consumers only the one whose DELETE removed the row gets the number.
        // A proof of another project is left alone, as in SQLite.
        let rows = try await query(
            """
            DELETE FROM phone_proofs WHERE proof_hash = \(Data(proofHash)) AND project_id = \(projectID)
            RETURNING phone_number, expires_at
            """)
        guard let (phone, expiresAt) = try rows.first?.decode((String, Int64).self) else { return nil }
        return now.millisecondsSince1970 < expiresAt ? phone : nil
    }

    public func appendOutbox(_ m: OutboxMessage) async throws {
        try await query(
            """
            INSERT INTO sms_outbox (project_id, phone_number, code, session_info, text, sent_at)
            VALUES (\(m.projectID), \(m.phoneNumber), \(m.code), \(m.sessionInfo), \(m.text),
              \(m.sentAt.millisecondsSince1970))
            """)
    }

    public func outbox(projectID: String) async throws -> [OutboxMessage] {
        try await query(
            """
            SELECT project_id, phone_number, code, session_info, text, sent_at FROM sms_outbox
            WHERE project_id = \(projectID) ORDER BY id
            """
        ).map { row in
            let (project, phone, code, session, text, sentAt) = try row.decode(
                (String, String, String, String, String, Int64).self)
            return OutboxMessage(
                projectID: project, phoneNumber: phone, code: code, sessionInfo: session, text: text,
                sentAt: Date(millisecondsSince1970: sentAt))
        }
    }

    public func claimSingleUse(_ key: String, until: Date, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        try await query("DELETE FROM single_use_keys WHERE expires_at <= \(nowMs)")
        // ON CONFLICT locks the existing row: of concurrent claims exactly one inserts or revives an expired use.
        return try await !query(
            """
            INSERT INTO single_use_keys (key, expires_at) VALUES (\(key), \(until.millisecondsSince1970))
            ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE single_use_keys.expires_at <= \(nowMs)
            RETURNING 1
            """
        ).isEmpty
    }

    public func insertEmailActionCode(_ c: EmailActionCode) async throws {
        try await query(
            """
            INSERT INTO email_action_codes
              (code_hash, project_id, kind, email, new_email, mfa_enrollment_id, created_at, expires_at)
            VALUES (\(Data(c.codeHash)), \(c.projectID), \(c.kind.rawValue), \(c.email), \(c.newEmail), \(c.mfaEnrollmentID),
              \(c.createdAt.millisecondsSince1970), \(c.expiresAt.millisecondsSince1970))
            """)
    }

    public func emailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode? {
        try await query(
            """
            SELECT * FROM email_action_codes
            WHERE code_hash = \(Data(hash)) AND project_id = \(projectID) AND expires_at > \(now.millisecondsSince1970)
            """
        ).first.flatMap(Self.actionCode)
    }

    public func consumeEmailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode? {
        // DELETE … RETURNING takes the row once: of two concurrent uses only one gets it back.
        try await query(
            """
            DELETE FROM email_action_codes
            WHERE code_hash = \(Data(hash)) AND project_id = \(projectID) AND expires_at > \(now.millisecondsSince1970)
            RETURNING *
            """
        ).first.flatMap(Self.actionCode)
    }

    static func actionCode(from row: PostgresRow) throws -> EmailActionCode? {
        let r = row.makeRandomAccess()
        guard let kind = EmailActionCode.Kind(rawValue: try r["kind"].decode(String.self)) else { return nil }
        return EmailActionCode(
            codeHash: Array(try r["code_hash"].decode(Data.self)), projectID: try r["project_id"].decode(String.self),
            kind: kind, email: try r["email"].decode(String.self), newEmail: try r["new_email"].decode(String?.self),
            mfaEnrollmentID: try r["mfa_enrollment_id"].decode(String?.self),
            createdAt: Date(millisecondsSince1970: try r["created_at"].decode(Int64.self)),
            expiresAt: Date(millisecondsSince1970: try r["expires_at"].decode(Int64.self)))
    }

    public func appendEmailOutbox(_ m: EmailOutboxMessage) async throws {
        try await query(
            """
            INSERT INTO email_outbox (project_id, email, kind, oob_code, oob_link, sent_at)
            VALUES (\(m.projectID), \(m.email), \(m.kind.rawValue), \(m.oobCode), \(m.oobLink), \(m.sentAt.millisecondsSince1970))
            """)
    }

    public func emailOutbox(projectID: String) async throws -> [EmailOutboxMessage] {
        try await query("SELECT * FROM email_outbox WHERE project_id = \(projectID) ORDER BY id").compactMap { row in
            let r = row.makeRandomAccess()
            guard let kind = EmailActionCode.Kind(rawValue: try r["kind"].decode(String.self)) else { return nil }
            return EmailOutboxMessage(
                projectID: projectID, email: try r["email"].decode(String.self), kind: kind,
                oobCode: try r["oob_code"].decode(String.self), oobLink: try r["oob_link"].decode(String.self),
                sentAt: Date(millisecondsSince1970: try r["sent_at"].decode(Int64.self)))
        }
    }
}
