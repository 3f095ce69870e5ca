import Foundation
import HearthCore

/// Keys: the token-signing keys every server shares, and the public halves of service-account keys.
public protocol KeyStore: Sendable {
    func signingKeys() async throws -> [StoredSigningKey]

    /// Inserts `key` only when no key exists yet (first start); returns the keys now stored.
    func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> [StoredSigningKey]

    func insertSigningKey(_ key: StoredSigningKey) async throws

    func retireSigningKey(kid: String, at: Date) async throws

    func deleteSigningKey(kid: String) async throws

    func insertServiceAccountKey(_ key: ServiceAccountKey) async throws

    func serviceAccountKey(keyID: String) async throws -> ServiceAccountKey?

    /// Every key, revoked ones included, oldest first.
    func serviceAccountKeys() async throws -> [ServiceAccountKey]

    /// Returns whether a live key was revoked.
    func revokeServiceAccountKey(keyID: String, at: Date) async throws -> Bool
}
