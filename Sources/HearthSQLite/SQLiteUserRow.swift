import Foundation
import GRDB
import HearthCore
import HearthStore

/// A user's rows on SQLite, `users` and `provider_links`: every column named once, with how a `UserRecord` binds it
/// and how it is read back. Inserts, updates and reads are built from these cases, so a new column is a case here
/// (the exhaustive switch asks for its binding; read it in `user(from:)`) plus a migration in `SQLiteSchema`.
enum SQLiteUserRow {
    enum Column: String, SQLiteColumn {
        case projectID = "project_id", uid, email, emailVerified = "email_verified", displayName = "display_name"
        case photoURL = "photo_url", phoneNumber = "phone_number", passwordHash = "password_hash"
        case passwordUpdatedAt = "password_updated_at", validSince = "valid_since", disabled
        case createdAt = "created_at", lastLoginAt = "last_login_at", lastRefreshAt = "last_refresh_at"
        case customClaims = "custom_claims", customAuth = "custom_auth", mfaInfo = "mfa_info"
        case emailLinkSignIn = "email_link_sign_in", initialEmail = "initial_email", screenName = "screen_name"
        case version

        static let positions = positionTable()

        func value(of user: UserRecord) -> (any DatabaseValueConvertible)? {
            switch self {
            case .projectID: user.projectID
            case .uid: user.uid
            case .email: user.email
            case .emailVerified: user.emailVerified
            case .displayName: user.displayName
            case .photoURL: user.photoURL
            case .phoneNumber: user.phoneNumber
            case .passwordHash: user.passwordHash
            case .passwordUpdatedAt: user.passwordUpdatedAt?.millisecondsSince1970
            case .validSince: user.validSince.millisecondsSince1970
            case .disabled: user.disabled
            case .createdAt: user.createdAt.millisecondsSince1970
            case .lastLoginAt: user.lastLoginAt?.millisecondsSince1970
            case .lastRefreshAt: user.lastRefreshAt?.millisecondsSince1970
            case .customClaims: user.customClaims
            case .customAuth: user.customAuth
            case .mfaInfo: MFAEnrollment.storedText(user.mfaEnrollments)
            case .emailLinkSignIn: user.emailLinkSignIn
            case .initialEmail: user.initialEmail
            case .screenName: user.screenName
            case .version: user.version
            }
        }

        /// The user of a row selected with `select`; its provider links are added from the same rows.
        static func user(from row: Row) -> UserRecord {
            var user = UserRecord(
                projectID: row[Self.projectID], uid: row[Self.uid], email: row[Self.email],
                emailVerified: row[Self.emailVerified], displayName: row[Self.displayName],
                photoURL: row[Self.photoURL], phoneNumber: row[Self.phoneNumber], passwordHash: row[Self.passwordHash],
                passwordUpdatedAt: date(row[Self.passwordUpdatedAt]),
                validSince: Date(millisecondsSince1970: row[Self.validSince]), disabled: row[Self.disabled],
                createdAt: Date(millisecondsSince1970: row[Self.createdAt]), lastLoginAt: date(row[Self.lastLoginAt]),
                lastRefreshAt: date(row[Self.lastRefreshAt]), customClaims: row[Self.customClaims],
                customAuth: row[Self.customAuth], mfaEnrollments: MFAEnrollment.parseStored(row[Self.mfaInfo]),
                version: row[Self.version])
            user.emailLinkSignIn = row[Self.emailLinkSignIn]
            user.initialEmail = row[Self.initialEmail]
            user.screenName = row[Self.screenName]
            return user
        }
    }

    /// A provider link's own columns (its row also holds the user's `project_id` and `uid`), after the user's.
    enum LinkColumn: String, SQLiteColumn {
        case providerID = "provider_id", rawID = "raw_id", federatedID = "federated_id", email
        case displayName = "display_name", photoURL = "photo_url", phoneNumber = "phone_number"
        case privateEmail = "private_email"

        static var offset: Int { Column.allCases.count }
        static let positions = positionTable()

        func value(of link: ProviderUserInfo) -> (any DatabaseValueConvertible)? {
            switch self {
            case .providerID: link.providerID
            case .rawID: link.rawID
            case .federatedID: link.federatedID
            case .email: link.email
            case .displayName: link.displayName
            case .photoURL: link.photoURL
            case .phoneNumber: link.phoneNumber
            case .privateEmail: link.isPrivateEmail
            }
        }

        /// The link of a row selected with `select`, nil for a user without links (the outer join's NULLs).
        static func link(from row: Row) -> ProviderUserInfo? {
            guard let providerID = row[Self.providerID] as String? else { return nil }
            return ProviderUserInfo(
                providerID: providerID, rawID: row[Self.rawID], federatedID: row[Self.federatedID],
                email: row[Self.email], displayName: row[Self.displayName], photoURL: row[Self.photoURL],
                phoneNumber: row[Self.phoneNumber], isPrivateEmail: row[Self.privateEmail])
        }
    }

    /// A user's passkeys as one JSON array (`PasskeyCredential.parseStored`), selected after the link columns: a
    /// scalar subquery, so the user, its links and its passkeys come from one statement without multiplying rows.
    /// `INDEXED BY`: left to itself, SQLite's planner (no statistics) probes the primary key by `project_id` alone
    /// rather than the non-covering `(project_id, uid)` index, reading every passkey of the project on every user
    /// read (18.7 ms a read at 100,000 passkeys; 32 µs by the index).
    static let passkeysSelect: String = {
        let members = PasskeyCredential.storedColumns.map { column in
            PasskeyCredential.storedBlobColumns.contains(column)
                ? "'\(column)', hex(p.\(column))" : "'\(column)', p.\(column)"
        }
        return """
            (SELECT json_group_array(json_object(\(members.joined(separator: ", ")))) FROM passkey_credentials p
             INDEXED BY passkey_credentials_user WHERE p.project_id = u.project_id AND p.uid = u.uid)
            """
    }()
    static let passkeysPosition = Column.allCases.count + LinkColumn.allCases.count

    /// Users with their links, one row per link: `FROM` the users as `u` (a table or a subquery of it), then this.
    static let columns = "\(Column.selectList("u")), \(LinkColumn.selectList("l")), \(passkeysSelect)"
    /// `INDEXED BY` for the same reason as the passkeys' (the link columns are not all in the index): 11.4 ms a read
    /// at 100,000 links of the project, by the primary key's `project_id` alone.
    static let joinLinks =
        "LEFT JOIN provider_links l INDEXED BY provider_links_user ON l.project_id = u.project_id AND l.uid = u.uid"

    /// A user and its provider links in one statement, so both come from one snapshot even outside a transaction.
    static func fetchOne(_ db: Database, where condition: String, _ arguments: StatementArguments) throws
        -> UserRecord?
    {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT \(columns) FROM users u \(joinLinks) WHERE \(condition) ORDER BY l.provider_id"),
            arguments: arguments)
        return users(from: rows).first
    }

    /// Users from rows of `columns`, one row per provider link, each user's rows adjacent.
    static func users(from rows: [Row]) -> [UserRecord] {
        var users: [UserRecord] = []
        for row in rows {
            if users.last?.uid != row[Column.uid] || users.last?.projectID != row[Column.projectID] {
                var user = Column.user(from: row)
                user.passkeys = PasskeyCredential.parseStored(row[passkeysPosition])
                users.append(user)
            }
            if let link = LinkColumn.link(from: row) { users[users.count - 1].providers.append(link) }
        }
        return users
    }

    /// Inserts the user's row and provider links; uniqueness is the caller's to check.
    static func insert(_ db: Database, _ user: UserRecord) throws {
        try db.run(insertSQL, StatementArguments(Column.allCases.map { $0.value(of: user) }))
        try insertLinks(db, user)
        try insertPasskeys(db, user, user.passkeys)
    }

    /// Replaces the stored fields of `user` if its stored version is still `user.version`, bumping it; the links
    /// are the caller's to rewrite. Returns whether the row was updated.
    static func update(_ db: Database, _ user: UserRecord) throws -> Bool {
        try db.run(
            updateSQL,
            StatementArguments(updated.map { $0.value(of: user) } + [user.projectID, user.uid, user.version]))
        return db.changesCount > 0
    }

    /// What an update writes: everything but the key and the version it bumps.
    static let updated = Column.allCases.filter { ![.projectID, .uid, .version].contains($0) }

    static let insertSQL = "INSERT INTO users (\(Column.names)) VALUES (\(placeholders(Column.allCases.count)))"
    static let updateSQL = """
        UPDATE users SET \(updated.map { "\($0.rawValue) = ?" }.joined(separator: ", ")), version = version + 1
        WHERE project_id = ? AND uid = ? AND version = ?
        """
    static let insertLinkSQL = """
        INSERT INTO provider_links (project_id, uid, \(LinkColumn.names))
        VALUES (\(placeholders(2 + LinkColumn.allCases.count)))
        """

    static func insertLinks(_ db: Database, _ user: UserRecord) throws {
        for link in user.providers {
            try db.run(
                insertLinkSQL,
                StatementArguments([user.projectID, user.uid] + LinkColumn.allCases.map { $0.value(of: link) }))
        }
    }

    static let insertPasskeySQL = """
        INSERT INTO passkey_credentials (project_id, uid, \(PasskeyCredential.storedColumns.joined(separator: ", ")))
        VALUES (\(placeholders(2 + PasskeyCredential.storedColumns.count)))
        """

    static func insertPasskeys(_ db: Database, _ user: UserRecord, _ passkeys: [PasskeyCredential]) throws {
        for p in passkeys {
            let values: [(any DatabaseValueConvertible)?] = [
                user.projectID, user.uid, Data(p.credentialID), Data(p.userHandle), Data(p.publicKey), p.algorithm,
                Int64(p.signCount), p.backupEligible, p.backedUp, Data(p.aaguid), p.name, p.attestationFormat,
                p.createdAt.millisecondsSince1970, p.lastUsedAt?.millisecondsSince1970,
            ]
            try db.run(insertPasskeySQL, StatementArguments(values))
        }
    }

    /// Brings the stored passkeys of `user` to its list: removed ones deleted, new ones inserted, the others left as
    /// they are (their counters move by `recordPasskeyUse`, which an update read earlier must not undo).
    static func writePasskeys(_ db: Database, _ user: UserRecord) throws {
        let stored = try Data.fetchAll(
            db, sql: "SELECT credential_id FROM passkey_credentials WHERE project_id = ? AND uid = ?",
            arguments: [user.projectID, user.uid]
        ).map { Array($0) }
        let wanted = Set(user.passkeys.map(\.credentialID))
        for id in stored where !wanted.contains(id) {
            try db.run(
                "DELETE FROM passkey_credentials WHERE project_id = ? AND credential_id = ?", [user.projectID, Data(id)])
        }
        let existing = Set(stored)
        try insertPasskeys(db, user, user.passkeys.filter { !existing.contains($0.credentialID) })
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    static func date(_ ms: Int64?) -> Date? { ms.map(Date.init(millisecondsSince1970:)) }
}
