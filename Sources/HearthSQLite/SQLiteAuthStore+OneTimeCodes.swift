import Foundation
import GRDB
import HearthCore
import HearthStore

/// `OneTimeCodeStore` on SQLite: phone codes and proofs, e-mail action codes, single-use keys, the development
/// outboxes. Pending sign-ins are in `+SecondFactors` and `+BrowserSignIn`.
extension SQLiteAuthStore {
    public func insertPhoneVerification(_ v: PhoneVerification) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO phone_verifications (session_hash, project_id, phone_number, code_hash, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    Data(v.sessionHash), v.projectID, v.phoneNumber, Data(v.codeHash),
                    v.createdAt.millisecondsSince1970,
                    v.expiresAt.millisecondsSince1970,
                ])
        }
    }

    public func attemptPhoneCode(sessionHash: [UInt8], codeHash: [UInt8], maxAttempts: Int, now: Date) async throws
        -> PhoneCodeOutcome
    {
        try await pool.write { db in
            let key = Data(sessionHash)
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql:
                            "SELECT phone_number, code_hash, attempts, expires_at FROM phone_verifications WHERE session_hash = ?"
                    ),
                    arguments: [key])
            else { return .unknown }
            let phone: String = row["phone_number"]
            let expected: Data = row["code_hash"]
            let attempts: Int = row["attempts"]
            let expiresAt: Int64 = row["expires_at"]
            if now.millisecondsSince1970 >= expiresAt {
                try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [key])
                return .expired
            }
            if ConstantTime.equals(Array(expected), codeHash) {
                try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [key])
                return .verified(phoneNumber: phone)
            }
            let remaining = maxAttempts - attempts - 1
            if remaining <= 0 {
                try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [key])
            } else {
                try db.run("UPDATE phone_verifications SET attempts = attempts + 1 WHERE session_hash = ?", [key])
            }
            return .wrongCode(phoneNumber: phone, remaining: max(remaining, 0))
        }
    }

    public func phoneVerificationIsLive(sessionHash: [UInt8], now: Date) async throws -> Bool {
        try await pointRead { db in
            try Row.fetchOne(
                db, sql: "SELECT 1 FROM phone_verifications WHERE session_hash = ? AND expires_at > ?",
                arguments: [Data(sessionHash), now.millisecondsSince1970]) != nil
        }
    }

    public func deletePhoneVerification(sessionHash: [UInt8]) async throws {
        try await pool.write { db in
            try db.run("DELETE FROM phone_verifications WHERE session_hash = ?", [Data(sessionHash)])
        }
    }

    public func insertPhoneProof(_ proof: PhoneProof) async throws {
        try await pool.write { db in
            try db.run(
                "INSERT INTO phone_proofs (proof_hash, project_id, phone_number, expires_at) VALUES (?, ?, ?, ?)",
                [Data(proof.proofHash), proof.projectID, proof.phoneNumber, proof.expiresAt.millisecondsSince1970])
        }
    }

    public func consumePhoneProof(proofHash: [UInt8], projectID: String, now: Date) async throws -> String? {
        try await pool.write { db in
            let key = Data(proofHash)
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT phone_number, expires_at FROM phone_proofs WHERE proof_hash = ? AND project_id = ?"
                    ),
                    arguments: [key, projectID])
            else { return nil }
            try db.run("DELETE FROM phone_proofs WHERE proof_hash = ?", [key])
            let expiresAt: Int64 = row["expires_at"]
            return now.millisecondsSince1970 < expiresAt ? row["phone_number"] as String : nil
        }
    }

    public func appendOutbox(_ m: OutboxMessage) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO sms_outbox (project_id, phone_number, code, session_info, text, sent_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, [m.projectID, m.phoneNumber, m.code, m.sessionInfo, m.text, m.sentAt.millisecondsSince1970])
        }
    }

    public func outbox(projectID: String) async throws -> [OutboxMessage] {
        try await pool.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT project_id, phone_number, code, session_info, text, sent_at FROM sms_outbox
                        WHERE project_id = ? ORDER BY id
                        """), arguments: [projectID]
            ).map { r in
                OutboxMessage(
                    projectID: r["project_id"], phoneNumber: r["phone_number"], code: r["code"],
                    sessionInfo: r["session_info"], text: r["text"], sentAt: Date(millisecondsSince1970: r["sent_at"]))
            }
        }
    }

    public func claimSingleUse(_ key: String, until: Date, now: Date) async throws -> Bool {
        let nowMs = now.millisecondsSince1970
        return try await pool.write { db in
            try db.run("DELETE FROM single_use_keys WHERE expires_at <= ?", [nowMs])
            // An expired use was just deleted, so a conflict means a live earlier use.
            try db.run(
                "INSERT INTO single_use_keys (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                [key, until.millisecondsSince1970])
            return db.changesCount > 0
        }
    }

    public func insertEmailActionCode(_ c: EmailActionCode) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO email_action_codes
                  (code_hash, project_id, kind, email, new_email, mfa_enrollment_id, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    Data(c.codeHash), c.projectID, c.kind.rawValue, c.email, c.newEmail, c.mfaEnrollmentID,
                    c.createdAt.millisecondsSince1970, c.expiresAt.millisecondsSince1970,
                ])
        }
    }

    public func emailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode? {
        try await pool.read { db in try Self.fetchActionCode(db, hash: hash, projectID: projectID, now: now) }
    }

    public func consumeEmailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode? {
        try await pool.write { db in
            guard let code = try Self.fetchActionCode(db, hash: hash, projectID: projectID, now: now) else {
                return nil
            }
            try db.run("DELETE FROM email_action_codes WHERE code_hash = ?", [Data(hash)])
            return code
        }
    }

    static func fetchActionCode(_ db: Database, hash: [UInt8], projectID: String, now: Date) throws -> EmailActionCode?
    {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT kind, email, new_email, created_at, expires_at, mfa_enrollment_id FROM email_action_codes
                        WHERE code_hash = ? AND project_id = ? AND expires_at > ?
                        """), arguments: [Data(hash), projectID, now.millisecondsSince1970]),
            let kind = EmailActionCode.Kind(rawValue: row["kind"])
        else { return nil }
        return EmailActionCode(
            codeHash: hash, projectID: projectID, kind: kind, email: row["email"], newEmail: row["new_email"],
            mfaEnrollmentID: row["mfa_enrollment_id"], createdAt: Date(millisecondsSince1970: row["created_at"]),
            expiresAt: Date(millisecondsSince1970: row["expires_at"]))
    }

    public func appendEmailOutbox(_ m: EmailOutboxMessage) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO email_outbox (project_id, email, kind, oob_code, oob_link, sent_at) VALUES (?, ?, ?, ?, ?, ?)
                """, [m.projectID, m.email, m.kind.rawValue, m.oobCode, m.oobLink, m.sentAt.millisecondsSince1970])
        }
    }

    public func emailOutbox(projectID: String) async throws -> [EmailOutboxMessage] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT email, kind, oob_code, oob_link, sent_at FROM email_outbox WHERE project_id = ? ORDER BY id
                    """, arguments: [projectID]
            ).compactMap { row in
                EmailActionCode.Kind(rawValue: row["kind"]).map { kind in
                    EmailOutboxMessage(
                        projectID: projectID, email: row["email"], kind: kind, oobCode: row["oob_code"],
                        oobLink: row["oob_link"], sentAt: Date(millisecondsSince1970: row["sent_at"]))
                }
            }
        }
    }
}
