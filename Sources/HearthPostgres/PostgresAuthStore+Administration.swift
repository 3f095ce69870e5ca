import Foundation
import HearthCore
import HearthStore
import PostgresNIO

extension PostgresAuthStore {
    // MARK: Administration

    public func users(projectID: String, afterUID: String?, limit: Int) async throws -> [UserRecord] {
        try PostgresUserRow.users(
            from: await query(
                """
                SELECT \(unescaped: PostgresUserRow.columns)
                FROM (SELECT * FROM users WHERE project_id = \(projectID) AND uid COLLATE "C" > \(afterUID ?? "")
                      ORDER BY uid COLLATE "C" LIMIT \(limit)) u
                \(unescaped: PostgresUserRow.joinLinks)
                ORDER BY u.uid COLLATE "C", l.provider_id COLLATE "C", l.raw_id COLLATE "C"
                """))
    }

    /// A batch in a handful of round trips rather than several per user: what the batch's uids, e-mails, phone
    /// numbers and provider identities already belong to is read once, each entry is then decided in order exactly
    /// as if the entries before it had been written (an overwritten user's old e-mail is free for the entries after
    /// it), and the accepted users are written with one multi-row statement per table.
    public func importUsers(_ users: [UserRecord], overwrite: Bool) async throws -> [Int: StoreError] {
        guard !users.isEmpty else { return [:] }
        return try await transaction { db in
            var failures: [Int: StoreError] = [:]
            var owners = try await Self.importOwners(db, users)
            var accepted: [UserRecord] = []
            var replaced: [UserRecord] = []
            for (index, user) in users.enumerated() {
                let key = ImportKey.uid(user.projectID, user.uid)
                let exists = owners.owner[key] != nil
                if exists && !overwrite {
                    failures[index] = .uidExists
                    continue
                }
                if let conflict = owners.conflict(for: user) {
                    failures[index] = conflict
                    continue
                }
                if exists { replaced.append(user) }
                owners.claim(user)
                accepted.append(user)
            }
            for group in Dictionary(grouping: replaced, by: \.projectID) {
                let uids = group.value.map(\.uid)
                try await db.run("DELETE FROM users WHERE project_id = \(group.key) AND uid = ANY(\(uids))")
                try await db.run("DELETE FROM provider_links WHERE project_id = \(group.key) AND uid = ANY(\(uids))")
            }
            try await Self.insertRows(db, accepted)
            return failures
        }
    }

    /// One row-valued key a user holds in the store, unique per project.
    enum ImportKey: Hashable {
        case uid(String, String)
        case email(String, String)
        case phone(String, String)
        case identity(String, String, String)

        static func held(by user: UserRecord) -> [ImportKey] {
            var keys = [ImportKey.uid(user.projectID, user.uid)]
            if let email = user.email { keys.append(.email(user.projectID, email)) }
            if let phone = user.phoneNumber { keys.append(.phone(user.projectID, phone)) }
            keys += user.providers.map { .identity(user.projectID, $0.providerID, $0.rawID) }
            return keys
        }
    }

    /// Who holds each key a batch asks about, as the batch goes: the store's holders first, then the entries taken.
    struct ImportOwners {
        var owner: [ImportKey: String] = [:]
        /// The keys each holder has, to release them all when an entry overwrites that holder.
        var keys: [String: [ImportKey]] = [:]

        mutating func hold(_ key: ImportKey, by uid: String, project: String) {
            owner[key] = uid
            keys[project + "\u{0}" + uid, default: []].append(key)
        }

        /// The first key the user would take from another holder, checked in Firebase's order (phone, e-mail,
        /// provider identity).
        func conflict(for user: UserRecord) -> StoreError? {
            func taken(_ key: ImportKey) -> Bool { owner[key].map { $0 != user.uid } ?? false }
            if let phone = user.phoneNumber, taken(.phone(user.projectID, phone)) { return .phoneNumberExists }
            if let email = user.email, taken(.email(user.projectID, email)) { return .emailExists }
            if user.providers.contains(where: { taken(.identity(user.projectID, $0.providerID, $0.rawID)) }) {
                return .federatedIDExists
            }
            return nil
        }

        /// The user replaces whatever its uid held and holds its own keys.
        mutating func claim(_ user: UserRecord) {
            for key in keys.removeValue(forKey: user.projectID + "\u{0}" + user.uid) ?? [] { owner[key] = nil }
            for key in ImportKey.held(by: user) { hold(key, by: user.uid, project: user.projectID) }
        }
    }

    /// The store's holders of the batch's keys, and every key those holders have (so an overwrite releases them),
    /// with the batch's existing users locked.
    static func importOwners(_ db: Transaction, _ users: [UserRecord]) async throws -> ImportOwners {
        var owners = ImportOwners()
        for group in Dictionary(grouping: users, by: \.projectID) {
            let project = group.key
            let uids = group.value.map(\.uid)
            let emails = group.value.compactMap(\.email)
            let phones = group.value.compactMap(\.phoneNumber)
            let links = group.value.flatMap(\.providers)
            // Users holding any of the keys, then everything those users hold.
            let holders = try await db.run(
                """
                SELECT uid FROM users WHERE project_id = \(project)
                  AND (uid = ANY(\(uids)) OR email = ANY(\(emails)) OR phone_number = ANY(\(phones)))
                UNION
                SELECT l.uid FROM provider_links l
                  JOIN unnest(\(links.map(\.providerID))::text[], \(links.map(\.rawID))::text[]) AS k(provider_id, raw_id)
                    ON l.provider_id = k.provider_id AND l.raw_id = k.raw_id
                WHERE l.project_id = \(project)
                """
            ).map { try $0.decode(String.self) }
            guard !holders.isEmpty else { continue }
            let rows = try await db.run(
                """
                SELECT uid, email, phone_number FROM users
                WHERE project_id = \(project) AND uid = ANY(\(holders)) FOR UPDATE
                """)
            for row in rows {
                let (uid, email, phone) = try row.decode((String, String?, String?).self)
                owners.hold(.uid(project, uid), by: uid, project: project)
                if let email { owners.hold(.email(project, email), by: uid, project: project) }
                if let phone { owners.hold(.phone(project, phone), by: uid, project: project) }
            }
            let identities = try await db.run(
                "SELECT uid, provider_id, raw_id FROM provider_links WHERE project_id = \(project) AND uid = ANY(\(holders))")
            for row in identities {
                let (uid, provider, raw) = try row.decode((String, String, String).self)
                owners.hold(.identity(project, provider, raw), by: uid, project: project)
            }
        }
        return owners
    }

    /// Inserts users and their provider links, a multi-row statement per `rowsPerStatement` rows (PostgreSQL takes
    /// up to 65,535 parameters); uniqueness is the caller's to check.
    static func insertRows(_ db: Transaction, _ users: [UserRecord]) async throws {
        let columns = PostgresUserRow.Column.allCases.count
        try await insertMany(db, users, into: PostgresUserRow.insertTarget, columns: columns) { binds, user in
            PostgresUserRow.bind(user, into: &binds)
        }
        try await insertLinks(db, users.flatMap { user in user.providers.map { (user, $0) } })
    }

    /// Inserts provider links, each with the user it belongs to.
    static func insertLinks(_ db: Transaction, _ links: [(UserRecord, ProviderUserInfo)]) async throws {
        let columns = PostgresUserRow.linkColumnCount
        try await insertMany(db, links, into: PostgresUserRow.linkInsertTarget, columns: columns) { binds, link in
            PostgresUserRow.bind(link.1, of: link.0, into: &binds)
        }
    }

    static func insertMany<Row>(
        _ db: Transaction, _ rows: [Row], into table: String, columns: Int,
        _ bind: (inout PostgresBindings, Row) -> Void
    ) async throws {
        for start in stride(from: 0, to: rows.count, by: rowsPerStatement) {
            let slice = rows[start..<min(start + rowsPerStatement, rows.count)]
            var binds = PostgresBindings(capacity: slice.count * columns)
            for row in slice { bind(&binds, row) }
            try await db.run(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(table) VALUES \(placeholders(rows: slice.count, columns: columns))",
                    binds: binds))
        }
    }

    static let rowsPerStatement = 1000

    /// `($1, …, $columns), ($columns+1, …)` for a multi-row VALUES list.
    static func placeholders(rows: Int, columns: Int) -> String {
        (0..<rows).map { row in
            "(" + (1...columns).map { "$\(row * columns + $0)" }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
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
