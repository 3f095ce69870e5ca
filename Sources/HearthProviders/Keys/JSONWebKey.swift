import Crypto
import CryptoExtras
import Foundation
import HearthCore

/// A provider's public signing key from its JWKS: RSA (for RS256) or P-256 (for ES256).
public struct JSONWebKey: Sendable {
    public enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    public var kid: String
    /// The `alg` the key is published for, when the provider says.
    public var algorithm: String?
    public var material: Material

    /// Parses one entry of a JWKS; nil for keys Hearth does not verify with (encryption keys, other curves,
    /// RSA keys under 2048 bits).
    public init?(_ jwk: JSONValue) {
        guard let kid = jwk["kid"]?.stringValue, jwk["use"]?.stringValue ?? "sig" == "sig" else { return nil }
        switch jwk["kty"]?.stringValue {
        case "RSA":
            guard let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
                let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            material = .rsa(key)
        case "EC":
            guard jwk["crv"]?.stringValue == "P-256",
                let x = jwk["x"]?.stringValue.flatMap(Base64URL.decode), x.count == 32,
                let y = jwk["y"]?.stringValue.flatMap(Base64URL.decode), y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            material = .p256(key)
        default:
            return nil
        }
        self.kid = kid
        self.algorithm = jwk["alg"]?.stringValue
    }

    /// Whether `signature` over `input` is valid under `algorithm`. Only RS256 (RSA keys) and ES256 (P-256 keys)
    /// exist here: `none` and HMAC algorithms can never verify, whatever the token's header claims.
    public func verifies(_ signature: [UInt8], over input: Substring, algorithm alg: String) -> Bool {
        if let published = algorithm, published != alg { return false }
        let digest = SHA256.hash(data: Data(input.utf8))
        switch (material, alg) {
        case (.rsa(let key), "RS256"):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: digest, padding: .insecurePKCS1v1_5)
        case (.p256(let key), "ES256"):
            guard signature.count == 64, let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(sig, for: digest)
        default:
            return false
        }
    }

    /// The usable keys of a JWKS document (`{"keys": [...]}`).
    public static func keySet(_ document: JSONValue) -> [String: JSONWebKey]? {
        guard case .array(let entries)? = document["keys"] else { return nil }
        var keys: [String: JSONWebKey] = [:]
        for entry in entries { if let key = JSONWebKey(entry) { keys[key.kid] = key } }
        return keys
    }
}
