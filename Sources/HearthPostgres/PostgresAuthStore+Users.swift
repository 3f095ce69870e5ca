import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `UserStore` on PostgreSQL: users and their provider links (`PostgresUserRow`), with row locks and the version
/// check.
extension PostgresAuthStore {
    public func insertUser(_ user: UserRecord) async throws {
        try await transaction { db in
            if try await !db.run("SELECT 1 FROM users WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
                .isEmpty
            {
                throw StoreError.uidExists
            }
            try await Self.checkUniqueFields(db, user)
            // A concurrent insert that passed the same checks makes this fail with a unique violation,
            // which `transaction` turns into the same StoreError.
            try await Self.insertRow(db, user)
        }
    }

    public func user(projectID: String, uid: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = \(uid)
                \(unescaped: Self.orderLinks)
                """))
    }

    public func user(projectID: String, email: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.email = \(email)
                \(unescaped: Self.orderLinks)
                """))
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await transaction { db in
            try await Self.checkUniqueFields(db, user)
            // A concurrent update of the same row waits for the first to commit, then sees the bumped version.
            let updated = try await db.run(PostgresUserRow.update(user))
            if updated.isEmpty {
                let exists = try await !db.run(
                    "SELECT 1 FROM users WHERE project_id = \(user.projectID) AND uid = \(user.uid)"
                ).isEmpty
                throw exists ? StoreError.versionConflict : StoreError.userNotFound
            }
            try await db.run("DELETE FROM provider_links WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
            try await Self.writeProviders(db, user)
            try await Self.writePasskeys(db, user)
        }
    }

    public func recordSignIn(projectID: String, uid: String, at: Date) async throws {
        try await query(Self.recordSignIn(projectID: projectID, uid: uid, at: at), changesUsers: true)
    }

    static func recordSignIn(projectID: String, uid: String, at: Date) -> PostgresQuery {
        """
        UPDATE users SET last_login_at = \(at.millisecondsSince1970), last_refresh_at = \(at.millisecondsSince1970)
        WHERE project_id = \(projectID) AND uid = \(uid)
        """
    }

    public func recordRefresh(projectID: String, uid: String, at: Date) async throws {
        try await query(
            "UPDATE users SET last_refresh_at = \(at.millisecondsSince1970) WHERE project_id = \(projectID) AND uid = \(uid)",
            changesUsers: true)
    }

    public func deleteUser(projectID: String, uid: String) async throws -> Bool {
        try await transaction { db in
            let existed = try await !db.run(
                "DELETE FROM users WHERE project_id = \(projectID) AND uid = \(uid) RETURNING 1"
            ).isEmpty
            try await db.run("DELETE FROM provider_links WHERE project_id = \(projectID) AND uid = \(uid)")
            try await db.run("DELETE FROM passkey_credentials WHERE project_id = \(projectID) AND uid = \(uid)")
            if existed {
                try await Self.revokeFamilies(db, projectID: projectID, uid: uid, reason: .userDeleted, at: Date())
            }
            return existed
        }
    }

    public func countUsers(projectID: String) async throws -> Int {
        try await query("SELECT COUNT(*) FROM users WHERE project_id = \(projectID)").first?.decode(Int.self) ?? 0
    }

    public func user(projectID: String, phoneNumber: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.phone_number = \(phoneNumber)
                \(unescaped: Self.orderLinks)
                """))
    }

    public func user(projectID: String, providerID: String, rawID: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = (SELECT uid FROM provider_links
                  WHERE project_id = \(projectID) AND provider_id = \(providerID) AND raw_id = \(rawID))
                \(unescaped: Self.orderLinks)
                """))
    }

    public func user(projectID: String, providerEmail: String) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = (SELECT uid FROM provider_links
                  WHERE project_id = \(projectID) AND email = \(providerEmail) ORDER BY uid COLLATE "C" LIMIT 1)
                \(unescaped: Self.orderLinks)
                """))
    }

    /// E-mail, phone number and each provider identity are unique per project.
    static func checkUniqueFields(_ db: Transaction, _ user: UserRecord) async throws {
        if let phone = user.phoneNumber {
            let taken = try await db.run(
                """
                SELECT 1 FROM users WHERE project_id = \(user.projectID) AND phone_number = \(phone) AND uid <> \(user.uid)
                """)
            if !taken.isEmpty { throw StoreError.phoneNumberExists }
        }
        if let email = user.email {
            let taken = try await db.run(
                "SELECT 1 FROM users WHERE project_id = \(user.projectID) AND email = \(email) AND uid <> \(user.uid)")
            if !taken.isEmpty { throw StoreError.emailExists }
        }
        for link in user.providers {
            let linked = try await db.run(
                """
                SELECT 1 FROM provider_links WHERE project_id = \(user.projectID) AND provider_id = \(link.providerID)
                  AND raw_id = \(link.rawID) AND uid <> \(user.uid)
                """)
            if !linked.isEmpty { throw StoreError.federatedIDExists }
        }
        for passkey in user.passkeys {
            let held = try await db.run(
                """
                SELECT 1 FROM passkey_credentials WHERE project_id = \(user.projectID)
                  AND credential_id = \(Data(passkey.credentialID)) AND uid <> \(user.uid)
                """)
            if !held.isEmpty { throw StoreError.passkeyExists }
        }
    }

    /// Brings the stored passkeys of `user` to its list: removed ones deleted, new ones inserted, the others left as
    /// they are (their counters move by `recordPasskeyUse`, which an update read earlier must not undo).
    static func writePasskeys(_ db: Transaction, _ user: UserRecord) async throws {
        var stored: Set<[UInt8]> = []
        for row in try await db.run(
            "SELECT credential_id FROM passkey_credentials WHERE project_id = \(user.projectID) AND uid = \(user.uid)")
        {
            stored.insert(Array(try row.decode(Data.self)))
        }
        let wanted = Set(user.passkeys.map(\.credentialID))
        for id in stored where !wanted.contains(id) {
            try await db.run(
                "DELETE FROM passkey_credentials WHERE project_id = \(user.projectID) AND credential_id = \(Data(id))")
        }
        try await insertPasskeys(db, user.passkeys.filter { !stored.contains($0.credentialID) }.map { (user, $0) })
    }

    /// Inserts passkeys, each with the user it belongs to.
    static func insertPasskeys(_ db: Transaction, _ passkeys: [(UserRecord, PasskeyCredential)]) async throws {
        let columns = PostgresUserRow.passkeyColumnCount
        try await insertMany(db, passkeys, into: PostgresUserRow.passkeyInsertTarget, columns: columns) {
            binds, passkey in PostgresUserRow.bind(passkey.1, of: passkey.0, into: &binds)
        }
    }

    /// Inserts the user's row and provider links; uniqueness is the caller's to check.
    static func insertRow(_ db: Transaction, _ user: UserRecord) async throws {
        try await insertRows(db, [user])
    }

    static func writeProviders(_ db: Transaction, _ user: UserRecord) async throws {
        try await insertLinks(db, user.providers.map { (user, $0) })
    }

    /// Byte-wise order, as SQLite sorts, whatever the database's collation.
    static let orderLinks = #"ORDER BY l.provider_id COLLATE "C", l.raw_id COLLATE "C""#

    static func user(from rows: [PostgresRow]) throws -> UserRecord? {
        try PostgresUserRow.users(from: rows).first
    }

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

    /// Inserts users and their provider links, a multi-row statement per `rowsPerStatement` rows (PostgreSQL takes
    /// up to 65,535 parameters); uniqueness is the caller's to check.
    static func insertRows(_ db: Transaction, _ users: [UserRecord]) async throws {
        let columns = PostgresUserRow.Column.allCases.count
        try await insertMany(db, users, into: PostgresUserRow.insertTarget, columns: columns) { binds, user in
            PostgresUserRow.bind(user, into: &binds)
        }
        try await insertLinks(db, users.flatMap { user in user.providers.map { (user, $0) } })
        try await insertPasskeys(db, users.flatMap { user in user.passkeys.map { (user, $0) } })
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
            try await db.run("DELETE FROM passkey_credentials WHERE project_id = \(projectID)")
            try await db.run(
                """
                DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM refresh_families WHERE project_id = \(projectID))
                """)
            try await db.run("DELETE FROM refresh_families WHERE project_id = \(projectID)")
            return deleted
        }
    }

    public func user(projectID: String, passkeyCredentialID: [UInt8]) async throws -> UserRecord? {
        try Self.user(
            from: await query(
                """
                \(unescaped: PostgresUserRow.select) WHERE u.project_id = \(projectID) AND u.uid = (SELECT uid
                  FROM passkey_credentials WHERE project_id = \(projectID) AND credential_id = \(Data(passkeyCredentialID)))
                \(unescaped: Self.orderLinks)
                """))
    }

    public func recordPasskeyUse(
        projectID: String, uid: String, credentialID: [UInt8], signCount: UInt32, backupEligible: Bool,
        backedUp: Bool, at: Date
    ) async throws -> Bool {
        try await !query(
            try Self.recordPasskeyUse(
                projectID: projectID, uid: uid, credentialID: credentialID, signCount: signCount,
                backupEligible: backupEligible, backedUp: backedUp, at: at),
            changesUsers: true
        ).isEmpty
    }

    static func recordPasskeyUse(
        projectID: String, uid: String, credentialID: [UInt8], signCount: UInt32, backupEligible: Bool,
        backedUp: Bool, at: Date
    ) throws -> PostgresQuery {
        try """
        UPDATE passkey_credentials SET sign_count = GREATEST(sign_count, \(Int64(signCount))),
          backup_eligible = \(backupEligible), backed_up = \(backedUp), last_used_at = \(at.millisecondsSince1970)
        WHERE project_id = \(projectID) AND uid = \(uid) AND credential_id = \(Data(credentialID))
        RETURNING 1
        """
    }
}
