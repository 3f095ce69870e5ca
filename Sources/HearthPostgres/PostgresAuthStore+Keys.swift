import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `KeyStore` on PostgreSQL: token-signing keys and service-account keys.
extension PostgresAuthStore {
    public func signingKeys() async throws -> [StoredSigningKey] {
        try await query(Self.selectKeys).map(Self.signingKey(from:))
    }

    public func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> [StoredSigningKey] {
        try await transaction { db in
            // Row locks cannot guard an empty table; two servers starting together queue on this lock
            // instead, and the second sees the first one's key once it may proceed.
            try await db.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.firstSigningKeyLock))")
            if try await db.run(Self.selectKeys).isEmpty {
                try await Self.insertKey(db, key)
            }
            return try await db.run(Self.selectKeys).map(Self.signingKey(from:))
        }
    }

    public func insertSigningKey(_ key: StoredSigningKey) async throws {
        try await transaction { db in try await Self.insertKey(db, key) }
    }

    public func retireSigningKey(kid: String, at: Date) async throws {
        try await query(
            "UPDATE signing_keys SET retired_at = \(at.millisecondsSince1970) WHERE kid = \(kid) AND retired_at IS NULL"
        )
    }

    public func deleteSigningKey(kid: String) async throws {
        try await query("DELETE FROM signing_keys WHERE kid = \(kid)")
    }

    static let selectKeys: PostgresQuery = #"SELECT * FROM signing_keys ORDER BY activates_at, kid COLLATE "C""#

    static func signingKey(from row: PostgresRow) throws -> StoredSigningKey {
        let row = row.makeRandomAccess()
        return StoredSigningKey(
            kid: try row["kid"].decode(String.self),
            algorithm: try row["algorithm"].decode(String.self),
            privateKey: Array(try row["private_key"].decode(Data.self)),
            encrypted: try row["encrypted"].decode(Bool.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
            activatesAt: Date(millisecondsSince1970: try row["activates_at"].decode(Int64.self)),
            retiredAt: try date(row["retired_at"]))
    }

    static func insertKey(_ db: Transaction, _ key: StoredSigningKey) async throws {
        try await db.run(
            """
            INSERT INTO signing_keys (kid, algorithm, private_key, encrypted, created_at, activates_at, retired_at)
            VALUES (\(key.kid), \(key.algorithm), \(Data(key.privateKey)), \(key.encrypted),
              \(key.createdAt.millisecondsSince1970), \(key.activatesAt.millisecondsSince1970),
              \(key.retiredAt?.millisecondsSince1970))
            """)
    }

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
}
