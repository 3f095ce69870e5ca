import Crypto
import Foundation
import HearthCore
import HearthStore

/// Opaque refresh tokens: 256 random bits, stored only as SHA-256 hashes of the whole token.
///
/// A token says where it is stored: `hrt2_<family>.<generation>.<secret>` (`RefreshTokenKey`), so a rotation's
/// writes land next to each other in the store. Tokens issued before that (`hrt1_<secret>`) are still honoured: the
/// store finds their key by hash (`SessionStore.refreshTokenKey(legacyHash:)`), and their successors are `hrt2_`.
///
/// When a token is rotated its successor is kept sealed under a key derived from the token itself,
/// so a racing request that presents the same token can be given the same successor, while the
/// database alone (which holds only hashes) reveals neither.
public enum RefreshTokenCodec {
    public static let prefix = "hrt2_"
    static let legacyPrefix = "hrt1_"
    /// base64url of 32 random bytes.
    static let secretLength = 43
    static let maxFamilyIDLength = 64
    /// So that a presented generation's successor (+ 1) always fits in an Int64.
    static let maxGenerationDigits = 18

    public static func generate(random: SecureRandom, key: RefreshTokenKey) -> String {
        "\(prefix)\(key.familyID).\(key.generation).\(random.token(bytes: 32))"
    }

    public static func hash(_ token: String) -> [UInt8] {
        SHA256.hash(data: Array(token.utf8)).withUnsafeBytes { Array($0) }
    }

    /// What a token's shape says, before the store is asked.
    public enum Shape: Equatable, Sendable {
        /// `hrt2_`: the token names its key.
        case keyed(RefreshTokenKey)
        /// `hrt1_`: the store knows its key by its hash.
        case legacy
        /// Not a refresh token of Hearth's.
        case invalid
    }

    public static func shape(of token: String) -> Shape {
        let utf8 = token.utf8
        if token.hasPrefix(legacyPrefix) {
            let secret = utf8.dropFirst(legacyPrefix.utf8.count)
            return secret.count == secretLength && isBase64URL(secret) ? .legacy : .invalid
        }
        guard token.hasPrefix(prefix) else { return .invalid }
        let parts = utf8.dropFirst(prefix.utf8.count)
            .split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, (1...maxFamilyIDLength).contains(parts[0].count), isBase64URL(parts[0]),
            (1...maxGenerationDigits).contains(parts[1].count), parts[1].allSatisfy({ (0x30...0x39).contains($0) }),
            parts[2].count == secretLength, isBase64URL(parts[2]),
            let generation = Int64(String(decoding: parts[1], as: UTF8.self))
        else { return .invalid }
        return .keyed(RefreshTokenKey(familyID: String(decoding: parts[0], as: UTF8.self), generation: generation))
    }

    private static func isBase64URL(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
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

    /// HKDF-SHA256 (RFC 5869) of the token, no salt, 32 bytes: one extract and one expand block, written out on
    /// the concrete `SHA256` because swift-crypto's generic `HKDF` and `HMAC` looked up their generic metadata on
    /// every call (the seal took 28 µs of a refresh's 1,550 under perf). It must stay this derivation: a successor
    /// sealed before an upgrade is opened after it (`refreshTokenSealKeyIsHKDF` compares it with swift-crypto's).
    static func key(for token: String) -> SymmetricKey {
        let prk = hmacSHA256(key: [UInt8](repeating: 0, count: 32), message: Array(token.utf8))
        return SymmetricKey(data: hmacSHA256(key: prk, message: successorKeyInfo))
    }

    /// HKDF's expand input for the first (and only) block: the info, then the block's number.
    private static let successorKeyInfo = Array("hearth refresh successor".utf8) + [1]

    /// HMAC-SHA256 (RFC 2104) for keys no longer than SHA-256's 64-byte block, which is all `key(for:)` uses.
    private static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        precondition(key.count <= 64)
        let block = key + [UInt8](repeating: 0, count: 64 - key.count)
        var inner = SHA256()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        message.withUnsafeBytes { inner.update(bufferPointer: $0) }
        let innerDigest = inner.finalize()
        var outer = SHA256()
        block.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        innerDigest.withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { Array($0) }
    }
}
