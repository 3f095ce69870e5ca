import Foundation
import GRDB
import HearthCore
import HearthStore

extension SQLiteAuthStore {
    // MARK: Administration

    public func users(projectID: String, afterUID: String?, limit: Int) async throws -> [UserRecord] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(SQLiteUserRow.columns)
                        FROM (SELECT * FROM users WHERE project_id = ? AND uid > ? ORDER BY uid LIMIT ?) u
                        \(SQLiteUserRow.joinLinks)
                        ORDER BY u.uid, l.provider_id
                        """), arguments: [projectID, afterUID ?? "", limit])
            return SQLiteUserRow.users(from: rows)
        }
    }

    public func importUsers(_ users: [UserRecord], overwrite: Bool) async throws -> [Int: StoreError] {
        try await pool.write { db in
            var failures: [Int: StoreError] = [:]
            for (index, user) in users.enumerated() {
                let key: StatementArguments = [user.projectID, user.uid]
                let exists = try Self.exists(db, "SELECT 1 FROM users WHERE project_id = ? AND uid = ?", key)
                if exists && !overwrite {
                    failures[index] = .uidExists
                    continue
                }
                do { try Self.checkUniqueFields(db, user) } catch let error as StoreError {
                    failures[index] = error
                    continue
                }
                if exists {
                    try db.run("DELETE FROM users WHERE project_id = ? AND uid = ?", key)
                    try db.run("DELETE FROM provider_links WHERE project_id = ? AND uid = ?", key)
                }
                try SQLiteUserRow.insert(db, user)
            }
            return failures
        }
    }

    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await pool.write { db in
            try db.run("DELETE FROM users WHERE project_id = ?", [projectID])
            let count = db.changesCount
            try db.run("DELETE FROM provider_links WHERE project_id = ?", [projectID])
            let tokens =
                "DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM refresh_families WHERE project_id = ?)"
            try db.run(tokens, [projectID])
            try db.run("DELETE FROM refresh_families WHERE project_id = ?", [projectID])
            return count
        }
    }

    // MARK: Service accounts

    public func insertServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO service_account_keys (key_id, project_id, client_email, public_key, created_at, revoked_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    key.keyID, key.projectID, key.clientEmail, Data(key.publicKey), key.createdAt.millisecondsSince1970,
                    key.revokedAt?.millisecondsSince1970,
                ])
        }
    }

    public func serviceAccountKey(keyID: String) async throws -> ServiceAccountKey? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "\(Self.selectServiceAccountKey) WHERE key_id = ?"), arguments: [keyID]
            ).map(Self.serviceAccountKey(from:))
        }
    }

    public func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "\(Self.selectServiceAccountKey) ORDER BY created_at, key_id")
                .map(Self.serviceAccountKey(from:))
        }
    }

    public func revokeServiceAccountKey(keyID: String, at: Date) async throws -> Bool {
        try await pool.write { db in
            try db.run(
                "UPDATE service_account_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                [at.millisecondsSince1970, keyID])
            return db.changesCount > 0
        }
    }

    static let selectServiceAccountKey =
        "SELECT key_id, project_id, client_email, public_key, created_at, revoked_at FROM service_account_keys"

    static func serviceAccountKey(from row: Row) -> ServiceAccountKey {
        ServiceAccountKey(
            keyID: row[0], projectID: row[1], clientEmail: row[2], publicKey: Array(row[3] as Data),
            createdAt: Date(millisecondsSince1970: row[4]), revokedAt: date(row[5]))
    }

    // MARK: Project settings

    public func projectSettings(projectID: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT settings FROM project_settings WHERE project_id = ?", arguments: [projectID])
        }
    }

    public func saveProjectSettings(projectID: String, settings: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO project_settings (project_id, settings, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (project_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at
                """, [projectID, settings, at.millisecondsSince1970])
        }
    }

    public func projectSettings(prefix: String) async throws -> [(projectID: String, settings: String)] {
        try await pool.read { db in
            // A range rather than LIKE, so `_` and `%` in ids mean themselves and the primary key index is used.
            try Row.fetchAll(
                db,
                sql: "SELECT project_id, settings FROM project_settings WHERE project_id >= ? AND project_id < ? ORDER BY project_id",
                arguments: [prefix, StoreSupport.prefixEnd(prefix)]
            ).map { (projectID: $0["project_id"], settings: $0["settings"]) }
        }
    }

    public func deleteProjectSettings(projectID: String) async throws -> Bool {
        try await pool.write { db in
            try db.run("DELETE FROM project_settings WHERE project_id = ?", [projectID])
            return db.changesCount > 0
        }
    }
}

extension SQLiteAuthStore {
    // MARK: E-mail action codes

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
            let kind = EmailActionCode.Kind(rawValue: row[0])
        else { return nil }
        return EmailActionCode(
            codeHash: hash, projectID: projectID, kind: kind, email: row[1], newEmail: row[2], mfaEnrollmentID: row[5],
            createdAt: Date(millisecondsSince1970: row[3]), expiresAt: Date(millisecondsSince1970: row[4]))
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
                EmailActionCode.Kind(rawValue: row[1]).map { kind in
                    EmailOutboxMessage(
                        projectID: projectID, email: row[0], kind: kind, oobCode: row[2], oobLink: row[3],
                        sentAt: Date(millisecondsSince1970: row[4]))
                }
            }
        }
    }
}
