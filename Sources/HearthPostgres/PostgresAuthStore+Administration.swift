import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresAuthStore {
    // MARK: Administration

    public func users(projectID: String, afterUID: String?, limit: Int) async throws -> [UserRecord] {
        try Self.users(
            from: await query(
                """
                SELECT \(unescaped: Self.userColumns)
                FROM (SELECT * FROM users WHERE project_id = \(projectID) AND uid COLLATE "C" > \(afterUID ?? "")
                      ORDER BY uid COLLATE "C" LIMIT \(limit)) u
                LEFT JOIN provider_links l ON l.project_id = u.project_id AND l.uid = u.uid
                ORDER BY u.uid COLLATE "C", l.provider_id COLLATE "C", l.raw_id COLLATE "C"
                """))
    }

    public func importUsers(_ users: [UserRecord], overwrite: Bool) async throws -> [Int: StoreError] {
        try await transaction { db in
            var failures: [Int: StoreError] = [:]
            for (index, user) in users.enumerated() {
                let exists = try await !db.run(
                    "SELECT 1 FROM users WHERE project_id = \(user.projectID) AND uid = \(user.uid) FOR UPDATE"
                ).isEmpty
                if exists && !overwrite {
                    failures[index] = .uidExists
                    continue
                }
                do { try await Self.checkUniqueFields(db, user) } catch let error as StoreError {
                    failures[index] = error
                    continue
                }
                if exists {
                    try await db.run("DELETE FROM users WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
                    try await db.run(
                        "DELETE FROM provider_links WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
                }
                try await Self.insertRow(db, user)
            }
            return failures
        }
    }

    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await transaction { db in
            let deleted = try await db.run("DELETE FROM users WHERE project_id = \(projectID) RETURNING 1").count
            try await db.run("DELETE FROM provider_links WHERE project_id = \(projectID)")
            try await db.run(
                """
                DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM refresh_families WHERE project_id = \(projectID))
                """)
            try await db.run("DELETE FROM refresh_families WHERE project_id = \(projectID)")
            return deleted
        }
    }

    // MARK: Service accounts

    public func insertServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await query(
            """
            INSERT INTO service_account_keys (key_id, project_id, client_email, public_key, created_at, revoked_at)
            VALUES (\(key.keyID), \(key.projectID), \(key.clientEmail), \(Data(key.publicKey)),
              \(key.createdAt.millisecondsSince1970), \(key.revokedAt?.millisecondsSince1970))
            """)
    }

    public func serviceAccountKey(keyID: String) async throws -> ServiceAccountKey? {
        try await query("SELECT * FROM service_account_keys WHERE key_id = \(keyID)").first.map(Self.serviceAccountKey)
    }

    public func serviceAccountKeys() async throws -> [ServiceAccountKey] {
        try await query(#"SELECT * FROM service_account_keys ORDER BY created_at, key_id COLLATE "C""#)
            .map(Self.serviceAccountKey)
    }

    public func revokeServiceAccountKey(keyID: String, at: Date) async throws -> Bool {
        try await !query(
            """
            UPDATE service_account_keys SET revoked_at = \(at.millisecondsSince1970)
            WHERE key_id = \(keyID) AND revoked_at IS NULL RETURNING 1
            """
        ).isEmpty
    }

    static func serviceAccountKey(from row: PostgresRow) throws -> ServiceAccountKey {
        let r = row.makeRandomAccess()
        return ServiceAccountKey(
            keyID: try r["key_id"].decode(String.self), projectID: try r["project_id"].decode(String.self),
            clientEmail: try r["client_email"].decode(String.self),
            publicKey: Array(try r["public_key"].decode(Data.self)),
            createdAt: Date(millisecondsSince1970: try r["created_at"].decode(Int64.self)),
            revokedAt: try date(r["revoked_at"]))
    }

    // MARK: Project settings

    public func projectSettings(projectID: String) async throws -> String? {
        try await query("SELECT settings FROM project_settings WHERE project_id = \(projectID)").first?
            .decode(String.self)
    }

    public func saveProjectSettings(projectID: String, settings: String, at: Date) async throws {
        try await query(
            """
            INSERT INTO project_settings (project_id, settings, updated_at)
            VALUES (\(projectID), \(settings), \(at.millisecondsSince1970))
            ON CONFLICT (project_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = EXCLUDED.updated_at
            """)
    }

    public func projectSettings(prefix: String) async throws -> [(projectID: String, settings: String)] {
        let end = StoreSupport.prefixEnd(prefix)
        return try await query(
            """
            SELECT project_id, settings FROM project_settings
            WHERE project_id COLLATE "C" >= \(prefix) AND project_id COLLATE "C" < \(end)
            ORDER BY project_id COLLATE "C"
            """
        ).map { row in
            let (id, settings) = try row.decode((String, String).self)
            return (projectID: id, settings: settings)
        }
    }

    public func deleteProjectSettings(projectID: String) async throws -> Bool {
        try await !query("DELETE FROM project_settings WHERE project_id = \(projectID) RETURNING project_id").isEmpty
    }
}

extension PostgresAuthStore {
    // MARK: E-mail action codes

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
