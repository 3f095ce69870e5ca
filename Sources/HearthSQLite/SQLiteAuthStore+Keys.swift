import Foundation
import GRDB
import HearthCore
import HearthStore

/// `KeyStore` on SQLite: token-signing keys and service-account keys.
extension SQLiteAuthStore {
    public func signingKeys() async throws -> [StoredSigningKey] {
        try await pool.read { db in try Self.fetchKeys(db) }
    }

    public func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> [StoredSigningKey] {
        try await pool.write { db in
            if try Self.fetchKeys(db).isEmpty { try Self.insertKey(db, key) }
            return try Self.fetchKeys(db)
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try await pool.write { db in try Self.insertKey(db, key) }
    }

    public func retireSigningKey(kid: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                "UPDATE signing_keys SET retired_at = ? WHERE kid = ? AND retired_at IS NULL",
                [at.millisecondsSince1970, kid])
        }
    }

    public func deleteSigningKey(kid: String) async throws {
        try await pool.write { db in
            try db.run("DELETE FROM signing_keys WHERE kid = ?", [kid])
        }
    }

    static func fetchKeys(_ db: Database) throws -> [StoredSigningKey] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM signing_keys ORDER BY activates_at, kid")).map { row in
            StoredSigningKey(
                kid: row["kid"], algorithm: row["algorithm"], privateKey: Array(row["private_key"] as Data),
                encrypted: row["encrypted"], createdAt: Date(millisecondsSince1970: row["created_at"]),
                activatesAt: Date(millisecondsSince1970: row["activates_at"]), retiredAt: date(row["retired_at"]))
        }
    }

    static func insertKey(_ db: Database, _ key: StoredSigningKey) throws {
        try db.run(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key, encrypted, created_at, activates_at, retired_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                key.kid, key.algorithm, Data(key.privateKey), key.encrypted, key.createdAt.millisecondsSince1970,
                key.activatesAt.millisecondsSince1970, key.retiredAt?.millisecondsSince1970,
            ])
    }

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
            keyID: row["key_id"], projectID: row["project_id"], clientEmail: row["client_email"],
            publicKey: Array(row["public_key"] as Data), createdAt: Date(millisecondsSince1970: row["created_at"]),
            revokedAt: date(row["revoked_at"]))
    }
}
