import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// A user's rows on PostgreSQL, `users` and `provider_links`: every column named once, with how a `UserRecord`
/// binds it and how it is read back (by name). Inserts (one user or an import's thousands), updates and reads are
/// built from these cases, so a new column is a case here (the exhaustive switch asks for its binding; read it in
/// `user(from:)`) plus a migration in `PostgresSchema`.
enum PostgresUserRow {
    enum Column: String, CaseIterable {
        case projectID = "project_id", uid, email, emailVerified = "email_verified", displayName = "display_name"
        case photoURL = "photo_url", phoneNumber = "phone_number", passwordHash = "password_hash"
        case passwordUpdatedAt = "password_updated_at", validSince = "valid_since", disabled
        case createdAt = "created_at", lastLoginAt = "last_login_at", lastRefreshAt = "last_refresh_at"
        case customClaims = "custom_claims", customAuth = "custom_auth", mfaInfo = "mfa_info"
        case emailLinkSignIn = "email_link_sign_in", initialEmail = "initial_email", screenName = "screen_name"
        case version

        func bind(_ user: UserRecord, into binds: inout PostgresBindings) {
            switch self {
            case .projectID: binds.append(user.projectID)
            case .uid: binds.append(user.uid)
            case .email: binds.append(user.email)
            case .emailVerified: binds.append(user.emailVerified)
            case .displayName: binds.append(user.displayName)
            case .photoURL: binds.append(user.photoURL)
            case .phoneNumber: binds.append(user.phoneNumber)
            case .passwordHash: binds.append(user.passwordHash)
            case .passwordUpdatedAt: binds.append(user.passwordUpdatedAt?.millisecondsSince1970)
            case .validSince: binds.append(user.validSince.millisecondsSince1970)
            case .disabled: binds.append(user.disabled)
            case .createdAt: binds.append(user.createdAt.millisecondsSince1970)
            case .lastLoginAt: binds.append(user.lastLoginAt?.millisecondsSince1970)
            case .lastRefreshAt: binds.append(user.lastRefreshAt?.millisecondsSince1970)
            case .customClaims: binds.append(user.customClaims)
            case .customAuth: binds.append(user.customAuth)
            case .mfaInfo: binds.append(MFAEnrollment.storedText(user.mfaEnrollments))
            case .emailLinkSignIn: binds.append(user.emailLinkSignIn)
            case .initialEmail: binds.append(user.initialEmail)
            case .screenName: binds.append(user.screenName)
            case .version: binds.append(user.version)
            }
        }

        /// The user of a row selected with `columns`; its provider links are added from the same rows.
        static func user(from row: PostgresRandomAccessRow) throws -> UserRecord {
            func cell(_ column: Column) -> PostgresCell { row[column.rawValue] }
            var user = UserRecord(
                projectID: try cell(.projectID).decode(String.self),
                uid: try cell(.uid).decode(String.self),
                email: try cell(.email).decode(String?.self),
                emailVerified: try cell(.emailVerified).decode(Bool.self),
                displayName: try cell(.displayName).decode(String?.self),
                photoURL: try cell(.photoURL).decode(String?.self),
                phoneNumber: try cell(.phoneNumber).decode(String?.self),
                passwordHash: try cell(.passwordHash).decode(String?.self),
                passwordUpdatedAt: try date(cell(.passwordUpdatedAt)),
                validSince: Date(millisecondsSince1970: try cell(.validSince).decode(Int64.self)),
                disabled: try cell(.disabled).decode(Bool.self),
                createdAt: Date(millisecondsSince1970: try cell(.createdAt).decode(Int64.self)),
                lastLoginAt: try date(cell(.lastLoginAt)),
                lastRefreshAt: try date(cell(.lastRefreshAt)),
                customClaims: try cell(.customClaims).decode(String?.self),
                customAuth: try cell(.customAuth).decode(Bool.self),
                mfaEnrollments: MFAEnrollment.parseStored(try cell(.mfaInfo).decode(String?.self)),
                version: try cell(.version).decode(Int64.self))
            user.emailLinkSignIn = try cell(.emailLinkSignIn).decode(Bool.self)
            user.initialEmail = try cell(.initialEmail).decode(String?.self)
            user.screenName = try cell(.screenName).decode(String?.self)
            return user
        }
    }

    /// A provider link's own columns (its row also holds the user's `project_id` and `uid`), selected as `link_…`.
    enum LinkColumn: String, CaseIterable {
        case providerID = "provider_id", rawID = "raw_id", federatedID = "federated_id", email
        case displayName = "display_name", photoURL = "photo_url", phoneNumber = "phone_number"
        case privateEmail = "private_email"

        /// Its name in the joined row, apart from the user's columns of the same name.
        var alias: String { "link_" + rawValue }

        func bind(_ link: ProviderUserInfo, into binds: inout PostgresBindings) {
            switch self {
            case .providerID: binds.append(link.providerID)
            case .rawID: binds.append(link.rawID)
            case .federatedID: binds.append(link.federatedID)
            case .email: binds.append(link.email)
            case .displayName: binds.append(link.displayName)
            case .photoURL: binds.append(link.photoURL)
            case .phoneNumber: binds.append(link.phoneNumber)
            case .privateEmail: binds.append(link.isPrivateEmail)
            }
        }

        /// The link of a row selected with `columns`, nil for a user without links (the outer join's NULLs).
        static func link(from row: PostgresRandomAccessRow) throws -> ProviderUserInfo? {
            func cell(_ column: LinkColumn) -> PostgresCell { row[column.alias] }
            guard let providerID = try cell(.providerID).decode(String?.self) else { return nil }
            return ProviderUserInfo(
                providerID: providerID, rawID: try cell(.rawID).decode(String.self),
                federatedID: try cell(.federatedID).decode(String?.self),
                email: try cell(.email).decode(String?.self),
                displayName: try cell(.displayName).decode(String?.self),
                photoURL: try cell(.photoURL).decode(String?.self),
                phoneNumber: try cell(.phoneNumber).decode(String?.self),
                isPrivateEmail: try cell(.privateEmail).decode(Bool.self))
        }
    }

    /// Users with their links, one row per link (or one with NULL link columns): `FROM` the users as `u` (a table or
    /// a subquery of it), then `joinLinks`.
    static let columns =
        (Column.allCases.map { "u." + $0.rawValue } + LinkColumn.allCases.map { "l.\($0.rawValue) AS \($0.alias)" }
            + [passkeysSelect]).joined(separator: ", ")

    /// A user's passkeys as one JSON array (`PasskeyCredential.parseStored`), as `passkeys`: a scalar subquery, so
    /// the user, its links and its passkeys come from one statement without multiplying rows.
    static let passkeysSelect: String = {
        let members = PasskeyCredential.storedColumns.map { column in
            PasskeyCredential.storedBlobColumns.contains(column)
                ? "'\(column)', encode(p.\(column), 'hex')" : "'\(column)', p.\(column)"
        }
        return """
            (SELECT COALESCE(json_agg(json_build_object(\(members.joined(separator: ", ")))), '[]')::text
             FROM passkey_credentials p WHERE p.project_id = u.project_id AND p.uid = u.uid) AS passkeys
            """
    }()
    static let joinLinks = "LEFT JOIN provider_links l ON l.project_id = u.project_id AND l.uid = u.uid"
    static let select = "SELECT \(columns) FROM users u \(joinLinks)"

    /// Users from rows of `columns`, one row per provider link, each user's rows adjacent.
    static func users(from rows: [PostgresRow]) throws -> [UserRecord] {
        var users: [UserRecord] = []
        for row in rows.map({ $0.makeRandomAccess() }) {
            let uid = try row[Column.uid.rawValue].decode(String.self)
            if users.last?.uid != uid {
                var user = try Column.user(from: row)
                user.passkeys = PasskeyCredential.parseStored(try row["passkeys"].decode(String?.self))
                users.append(user)
            }
            if let link = try LinkColumn.link(from: row) { users[users.count - 1].providers.append(link) }
        }
        return users
    }

    /// `users (project_id, …)` for a multi-row insert of `Column.allCases.count` values a row.
    static let insertTarget = "users (\(Column.allCases.map(\.rawValue).joined(separator: ", ")))"
    static func bind(_ user: UserRecord, into binds: inout PostgresBindings) {
        for column in Column.allCases { column.bind(user, into: &binds) }
    }

    /// `provider_links (project_id, uid, provider_id, …)`, a link's values after its user's key.
    static let linkInsertTarget =
        "provider_links (project_id, uid, \(LinkColumn.allCases.map(\.rawValue).joined(separator: ", ")))"
    static let linkColumnCount = 2 + LinkColumn.allCases.count
    static func bind(_ link: ProviderUserInfo, of user: UserRecord, into binds: inout PostgresBindings) {
        binds.append(user.projectID)
        binds.append(user.uid)
        for column in LinkColumn.allCases { column.bind(link, into: &binds) }
    }

    /// `passkey_credentials (project_id, uid, credential_id, …)`, a passkey's values after its user's key.
    static let passkeyInsertTarget =
        "passkey_credentials (project_id, uid, \(PasskeyCredential.storedColumns.joined(separator: ", ")))"
    static let passkeyColumnCount = 2 + PasskeyCredential.storedColumns.count
    static func bind(_ p: PasskeyCredential, of user: UserRecord, into binds: inout PostgresBindings) {
        binds.append(user.projectID)
        binds.append(user.uid)
        binds.append(ByteBuffer(bytes: p.credentialID))
        binds.append(ByteBuffer(bytes: p.userHandle))
        binds.append(ByteBuffer(bytes: p.publicKey))
        binds.append(Int64(p.algorithm))
        binds.append(Int64(p.signCount))
        binds.append(p.backupEligible)
        binds.append(p.backedUp)
        binds.append(ByteBuffer(bytes: p.aaguid))
        binds.append(p.name)
        binds.append(p.attestationFormat)
        binds.append(p.createdAt.millisecondsSince1970)
        binds.append(p.lastUsedAt?.millisecondsSince1970)
    }

    /// Replaces the stored fields of `user` if its stored version is still `user.version`, bumping it, and returns a
    /// row when it did; the links are the caller's to rewrite.
    static func update(_ user: UserRecord) -> PostgresQuery {
        var binds = PostgresBindings(capacity: updated.count + 3)
        for column in updated { column.bind(user, into: &binds) }
        binds.append(user.projectID)
        binds.append(user.uid)
        binds.append(user.version)
        return PostgresQuery(unsafeSQL: updateSQL, binds: binds)
    }

    /// What an update writes: everything but the key and the version it bumps.
    static let updated = Column.allCases.filter { ![.projectID, .uid, .version].contains($0) }
    static let updateSQL = """
        UPDATE users SET \(updated.enumerated().map { "\($1.rawValue) = $\($0 + 1)" }.joined(separator: ", ")),
          version = version + 1
        WHERE project_id = $\(updated.count + 1) AND uid = $\(updated.count + 2) AND version = $\(updated.count + 3)
        RETURNING 1
        """

    static func date(_ cell: PostgresCell) throws -> Date? {
        try cell.decode(Int64?.self).map(Date.init(millisecondsSince1970:))
    }
}
