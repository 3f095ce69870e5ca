import Foundation
import GRDB
import HearthCore
import HearthStore

/// `UserStore` on SQLite: users and their provider links (`SQLiteUserRow`), under `BEGIN IMMEDIATE` and the
/// version check.
extension SQLiteAuthStore {
    public func insertUser(_ user: UserRecord) async throws {
        try await pool.write { db in
            if try Self.exists(db, "SELECT 1 FROM users WHERE project_id = ? AND uid = ?", [user.projectID, user.uid]) {
                throw StoreError.uidExists
            }
            try Self.checkUniqueFields(db, user)
            try SQLiteUserRow.insert(db, user)
        }
    }

    public func user(projectID: String, uid: String) async throws -> UserRecord? {
        try await pointRead { db in
            try SQLiteUserRow.fetchOne(db, where: "u.project_id = ? AND u.uid = ?", [projectID, uid])
        }
    }

    public func user(projectID: String, email: String) async throws -> UserRecord? {
        try await pointRead { db in
            try SQLiteUserRow.fetchOne(db, where: "u.project_id = ? AND u.email = ?", [projectID, email])
        }
    }

    public func updateUser(_ user: UserRecord) async throws {
        try await pool.write { db in
            try Self.checkUniqueFields(db, user)
            if try !SQLiteUserRow.update(db, user) {
                let exists = try Self.exists(
                    db, "SELECT 1 FROM users WHERE project_id = ? AND uid = ?", [user.projectID, user.uid])
                throw exists ? StoreError.versionConflict : StoreError.userNotFound
            }
            try db.run("DELETE FROM provider_links WHERE project_id = ? AND uid = ?", [user.projectID, user.uid])
            try SQLiteUserRow.insertLinks(db, user)
            try SQLiteUserRow.writePasskeys(db, user)
        }
    }

    public func recordSignIn(projectID: String, uid: String, at: Date) async throws {
        try await pool.write { db in try Self.recordSignIn(db, projectID: projectID, uid: uid, at: at) }
    }

    static func recordSignIn(_ db: Database, projectID: String, uid: String, at: Date) throws {
        try db.run(
            "UPDATE users SET last_login_at = ?, last_refresh_at = ? WHERE project_id = ? AND uid = ?",
            [at.millisecondsSince1970, at.millisecondsSince1970, projectID, uid])
    }

    public func recordRefresh(projectID: String, uid: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                "UPDATE users SET last_refresh_at = ? WHERE project_id = ? AND uid = ?",
                [at.millisecondsSince1970, projectID, uid])
        }
    }

    public func deleteUser(projectID: String, uid: String) async throws -> Bool {
        try await pool.write { db in
            try db.run("DELETE FROM users WHERE project_id = ? AND uid = ?", [projectID, uid])
            let existed = db.changesCount > 0
            try db.run("DELETE FROM provider_links WHERE project_id = ? AND uid = ?", [projectID, uid])
            try db.run("DELETE FROM passkey_credentials WHERE project_id = ? AND uid = ?", [projectID, uid])
            if existed {
                try Self.revokeFamilies(
                    db, projectID: projectID, uid: uid, reason: .userDeleted, at: Date().millisecondsSince1970)
            }
            return existed
        }
    }

    public func countUsers(projectID: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*) FROM users WHERE project_id = ?"), arguments: [projectID]) ?? 0
        }
    }

    public func user(projectID: String, phoneNumber: String) async throws -> UserRecord? {
        try await pointRead { db in
            try SQLiteUserRow.fetchOne(db, where: "u.project_id = ? AND u.phone_number = ?", [projectID, phoneNumber])
        }
    }

    public func user(projectID: String, providerID: String, rawID: String) async throws -> UserRecord? {
        try await pointRead { db in
            try SQLiteUserRow.fetchOne(
                db,
                where: """
                    u.project_id = ? AND u.uid = (SELECT uid FROM provider_links
                      WHERE project_id = ? AND provider_id = ? AND raw_id = ?)
                    """, [projectID, projectID, providerID, rawID])
        }
    }

    public func user(projectID: String, providerEmail: String) async throws -> UserRecord? {
        try await pointRead { db in
            try SQLiteUserRow.fetchOne(
                db,
                where: """
                    u.project_id = ? AND u.uid = (SELECT uid FROM provider_links
                      WHERE project_id = ? AND email = ? ORDER BY uid LIMIT 1)
                    """, [projectID, projectID, providerEmail])
        }
    }

    /// E-mail, phone number and each provider identity are unique per project.
    static func checkUniqueFields(_ db: Database, _ user: UserRecord) throws {
        if let phone = user.phoneNumber,
            try exists(
                db, "SELECT 1 FROM users WHERE project_id = ? AND phone_number = ? AND uid <> ?",
                [user.projectID, phone, user.uid])
        {
            throw StoreError.phoneNumberExists
        }
        if let email = user.email,
            try exists(
                db, "SELECT 1 FROM users WHERE project_id = ? AND email = ? AND uid <> ?",
                [user.projectID, email, user.uid])
        {
            throw StoreError.emailExists
        }
        for link in user.providers
        where try exists(
            db, "SELECT 1 FROM provider_links WHERE project_id = ? AND provider_id = ? AND raw_id = ? AND uid <> ?",
            [user.projectID, link.providerID, link.rawID, user.uid])
        {
            throw StoreError.federatedIDExists
        }
        for passkey in user.passkeys
        where try exists(
            db, "SELECT 1 FROM passkey_credentials WHERE project_id = ? AND credential_id = ? AND uid <> ?",
            [user.projectID, Data(passkey.credentialID), user.uid])
        {
            throw StoreError.passkeyExists
        }
    }

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
                    try db.run("DELETE FROM passkey_credentials WHERE project_id = ? AND uid = ?", key)
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
            try db.run("DELETE FROM passkey_credentials WHERE project_id = ?", [projectID])
            let tokens =
                "DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM refresh_families WHERE project_id = ?)"
            try db.run(tokens, [projectID])
            try db.run("DELETE FROM refresh_families WHERE project_id = ?", [projectID])
            return count
        }
    }

    public func user(projectID: String, passkeyCredentialID: [UInt8]) async throws -> UserRecord? {
        try await pointRead { db in
            try SQLiteUserRow.fetchOne(
                db,
                where: """
                    u.project_id = ? AND u.uid = (SELECT uid FROM passkey_credentials
                      WHERE project_id = ? AND credential_id = ?)
                    """, [projectID, projectID, Data(passkeyCredentialID)])
        }
    }

    public func recordPasskeyUse(
        projectID: String, uid: String, credentialID: [UInt8], signCount: UInt32, backupEligible: Bool,
        backedUp: Bool, at: Date
    ) async throws -> Bool {
        try await pool.write { db in
            try Self.recordPasskeyUse(
                db, projectID: projectID, uid: uid, credentialID: credentialID, signCount: signCount,
                backupEligible: backupEligible, backedUp: backedUp, at: at)
        }
    }

    static func recordPasskeyUse(
        _ db: Database, projectID: String, uid: String, credentialID: [UInt8], signCount: UInt32,
        backupEligible: Bool, backedUp: Bool, at: Date
    ) throws -> Bool {
        try db.run(
            """
            UPDATE passkey_credentials SET sign_count = max(sign_count, ?), backup_eligible = ?, backed_up = ?,
              last_used_at = ?
            WHERE project_id = ? AND uid = ? AND credential_id = ?
            """,
            [
                Int64(signCount), backupEligible, backedUp, at.millisecondsSince1970, projectID, uid,
                Data(credentialID),
            ])
        return db.changesCount > 0
    }
}
