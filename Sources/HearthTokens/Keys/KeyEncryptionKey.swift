import Crypto
import Foundation
import HearthCore

/// Encrypts signing keys and TOTP secrets at rest (AES-256-GCM) when the operator configures a key-encryption key.
public struct KeyEncryptionKey: Sendable {
    let key: SymmetricKey

    /// From base64 text of exactly 32 bytes, as `HEARTH_KEY_ENCRYPTION_KEY` carries it.
    public init(base64: String) throws {
        guard let data = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32
        else {
            throw KeyRingError.invalidKeyEncryptionKey
        }
        key = SymmetricKey(data: data)
    }

    public func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
        Array(try AES.GCM.seal(plaintext, using: key).combined!)
    }

    public func open(_ sealed: [UInt8]) throws -> [UInt8] {
        Array(try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key))
    }
}

public enum KeyRingError: Error, CustomStringConvertible {
    case invalidKeyEncryptionKey
    case encryptedKeyWithoutKEK(kid: String)
    case undecryptableKey(kid: String)
    case noActiveKey

    public var description: String {
        switch self {
        case .invalidKeyEncryptionKey:
            "the key-encryption key must be base64 of exactly 32 bytes (try: openssl rand -base64 32)"
        case .encryptedKeyWithoutKEK(let kid):
            "signing key \(kid) is encrypted but no key-encryption key is configured (HEARTH_KEY_ENCRYPTION_KEY)"
        case .undecryptableKey(let kid):
            "signing key \(kid) cannot be decrypted with the configured key-encryption key"
        case .noActiveKey:
            "no signing key is active"
        }
    }
}
