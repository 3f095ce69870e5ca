import Crypto
import Foundation
import HearthCore

/// Anti-forgery tokens for server-rendered forms: an HMAC of a browser's cookie value under a key only servers hold,
/// so a client (or whoever planted a cookie in its browser) cannot choose a cookie and token that agree.
///
/// The key is derived (HKDF, per purpose) from a signing key of the ring, which every server process shares through
/// the store; the token names that key, so a form made before a rotation, or by another process, still checks while
/// the key is loaded. Format: `<kid>.<expiry seconds>.<base64url HMAC-SHA256>`.
public struct FormTokens: Sendable {
    let keyRing: SigningKeyRing
    let purpose: String
    let lifetime: TimeInterval

    public init(keyRing: SigningKeyRing, purpose: String, lifetime: TimeInterval = 86400) {
        self.keyRing = keyRing
        self.purpose = purpose
        self.lifetime = lifetime
    }

    /// A token bound to `cookie`, valid for `lifetime` from `now`.
    public func issue(binding cookie: String, now: Date) async throws -> String {
        let key = try await keyRing.signer()
        let expiry = now.addingTimeInterval(lifetime).secondsSince1970
        return "\(key.kid).\(expiry).\(Base64URL.encode(mac(key, cookie: cookie, expiry: expiry)))"
    }

    /// Whether `token` was issued for `cookie` by a server of this deployment and has not expired.
    public func check(_ token: String, binding cookie: String, now: Date) async -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expiry = Int64(parts[1]), expiry > now.secondsSince1970,
            let sent = Base64URL.decode(String(parts[2])),
            let key = await keyRing.verificationKey(kid: String(parts[0]))
        else { return false }
        return ConstantTime.equals(sent, mac(key, cookie: cookie, expiry: expiry))
    }

    private func mac(_ key: SigningKeyRing.Key, cookie: String, expiry: Int64) -> [UInt8] {
        let secret = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key.privateKey.derRepresentation),
            info: Array("hearth form token \(purpose)".utf8), outputByteCount: 32)
        let message = Array("\(expiry)\n\(cookie)".utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: secret))
    }
}
