import Crypto
import Foundation
import HearthCore

/// Opaque refresh tokens: 256 random bits, stored only as SHA-256 hashes.
///
/// When a token is rotated its successor is kept sealed under a key derived from the token itself,
/// so a racing request that presents the same token can be given the same successor, while the
/// database alone (which holds only hashes) reveals neither.
public enum RefreshTokenCodec {
    public static let prefix = "hrt1_"

    public static func generate(random: SecureRandom) -> String {
        prefix + random.token(bytes: 32)
    }

    public static func hash(_ token: String) -> [UInt8] {
        SHA256.hash(data: Array(token.utf8)).withUnsafeBytes { Array($0) }
    }

    /// Cheap shape check before touching the store.
    public static func looksValid(_ token: String) -> Bool {
        token.hasPrefix(prefix) && token.utf8.count == prefix.utf8.count + 43
    }

    public static func seal(successor: String, under token: String) throws -> [UInt8] {
        try AES.GCM.seal(Array(successor.utf8), using: key(for: token)).combined!.withUnsafeBytes { Array($0) }
    }

    public static func open(sealed: [UInt8], under token: String) -> String? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: key(for: token))
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    static func key(for token: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Array(token.utf8)), info: Array("hearth refresh successor".utf8),
            outputByteCount: 32)
    }
}
