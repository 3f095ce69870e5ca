import Foundation
import HearthCore
import HearthTokens

/// Checks an OpenID Connect ID token from a provider: RS256 or ES256 only (never `none`, never HMAC),
/// a published `kid`, a valid signature, an accepted `iss` and `aud`, not expired, not issued in the future.
struct ProviderTokenCheck {
    var issuers: [String]
    var audiences: [String]
    var keys: RemoteKeySet
    /// Seconds of clock difference tolerated on `exp` and `iat`.
    var clockSkew: TimeInterval = 60
    /// For tokens without `exp` (Apple's server-to-server notifications): the oldest `iat` accepted.
    var maxAgeWithoutExpiry: TimeInterval?

    static let algorithms: Set<String> = ["RS256", "ES256"]

    func verify(_ token: String, now: Date) async throws -> [String: JSONValue] {
        guard let parsed = JWS.parse(token) else { throw Self.invalid("The ID token is malformed.") }
        guard let alg = parsed.header["alg"]?.stringValue, Self.algorithms.contains(alg) else {
            throw Self.invalid("The ID token's signing algorithm is not accepted.")
        }
        guard let kid = parsed.header["kid"]?.stringValue, let key = try await keys.key(kid: kid) else {
            throw Self.invalid("The ID token is signed with an unknown key.")
        }
        guard key.verifies(Array(parsed.signature), over: parsed.signingInput, algorithm: alg) else {
            throw Self.invalid("The ID token's signature is invalid.")
        }
        let claims = parsed.payload
        guard let iss = claims["iss"]?.stringValue, issuers.contains(iss) else {
            throw Self.invalid("The ID token's issuer is not accepted.")
        }
        let audience: [String] =
            switch claims["aud"] {
            case .string(let a)?: [a]
            case .array(let items)?: items.compactMap(\.stringValue)
            default: []
            }
        guard audience.contains(where: audiences.contains) else {
            throw Self.invalid("The ID token was issued to another client (aud).")
        }
        if let maxAge = maxAgeWithoutExpiry, claims["exp"] == nil {
            guard let iat = claims["iat"]?.doubleValue, iat + maxAge > now.timeIntervalSince1970 else {
                throw Self.invalid("The token is too old.")
            }
        } else {
            guard let exp = claims["exp"]?.doubleValue, exp + clockSkew > now.timeIntervalSince1970 else {
                throw Self.invalid("The ID token has expired.")
            }
        }
        if let iat = claims["iat"]?.doubleValue, iat > now.timeIntervalSince1970 + clockSkew {
            throw Self.invalid("The ID token was issued in the future.")
        }
        guard JWS.hasStarted(claims, now: now, skew: clockSkew) else {
            throw Self.invalid("The ID token is not valid yet (nbf).")
        }
        if maxAgeWithoutExpiry == nil {
            guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
                throw Self.invalid("The ID token has no subject.")
            }
        }
        return claims
    }

    static func invalid(_ detail: String) -> AuthError { AuthError(.invalidIDPResponse, detail) }
}

/// The claims of a token accepted without a signature: emulator mode only, as the Firebase Auth Emulator
/// accepts strict JSON or any JWT (unsigned `alg: none` included) as a fake provider token.
enum UnsignedToken {
    static func claims(_ token: String) throws -> [String: JSONValue] {
        let claims: [String: JSONValue]?
        if token.hasPrefix("{") {
            claims = (try? JSONValue(parsing: token))?.objectValue
        } else {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            claims =
                parts.count >= 2
                ? Base64URL.decode(parts[1]).flatMap { try? JSONValue.parse($0) }?.objectValue : nil
        }
        guard let claims else { throw AuthError(.invalidIDPResponse, "Unable to parse id_token: \(token.prefix(64))") }
        guard case .string(let sub)? = claims["sub"], !sub.isEmpty else {
            throw AuthError(.invalidIDPResponse, "Invalid Idp Response: id_token missing required fields.")
        }
        return claims
    }

    /// Whether the token carries no signature to check (strict JSON, or a JWT with `alg: none`).
    static func isUnsigned(_ token: String) -> Bool {
        if token.hasPrefix("{") { return true }
        guard let header = token.split(separator: ".").first.flatMap({ Base64URL.decode($0) }),
            let alg = (try? JSONValue.parse(header))?["alg"]?.stringValue
        else { return false }
        return alg.lowercased() == "none"
    }
}
