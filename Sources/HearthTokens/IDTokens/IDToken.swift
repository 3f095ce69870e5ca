import Foundation
import HearthCore

/// The facts a verified Hearth ID token asserts.
public struct VerifiedIDToken: Sendable, Equatable {
    public var uid: String
    public var projectID: String
    public var issuedAt: Date
    public var authTime: Date
    public var expiresAt: Date
    public var signInProvider: String?
    public var claims: [String: JSONValue]
}

/// Mints and verifies Firebase-compatible ID tokens.
///
/// Claims: `iss=https://securetoken.google.com/<project>`, `aud=<project>`, `sub=user_id=uid`, `auth_time`,
/// `iat`, `exp`, the profile claims, custom claims at the top level, and `firebase.{identities, sign_in_provider}`.
public struct IDTokenService: Sendable {
    public let keyRing: SigningKeyRing
    /// Seconds of clock difference tolerated on `iat`.
    public var clockSkew: TimeInterval = 60

    public init(keyRing: SigningKeyRing) {
        self.keyRing = keyRing
    }

    public static func issuer(projectID: String) -> String { "https://securetoken.google.com/\(projectID)" }

    /// Claims a developer may not set: Firebase's FORBIDDEN_CLAIM list.
    public static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti",
        "nbf", "nonce", "sub",
    ]

    public func mint(
        user: UserRecord, signInProvider: String, authTime: Date, lifetimeSeconds: Int, now: Date
    ) throws -> String {
        let iat = now.secondsSince1970
        var claims: [String: JSONValue] = [:]
        if let custom = user.customClaims, case .object(let extra)? = try? JSONValue(parsing: custom) {
            for (k, v) in extra where !Self.reservedClaims.contains(k) { claims[k] = v }
        }
        claims["iss"] = .string(Self.issuer(projectID: user.projectID))
        claims["aud"] = .string(user.projectID)
        claims["auth_time"] = .number(Double(authTime.secondsSince1970))
        claims["user_id"] = .string(user.uid)
        claims["sub"] = .string(user.uid)
        claims["iat"] = .number(Double(iat))
        claims["exp"] = .number(Double(iat + Int64(lifetimeSeconds)))
        if let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        if let phone = user.phoneNumber { claims["phone_number"] = .string(phone) }
        if let name = user.displayName { claims["name"] = .string(name) }
        if let picture = user.photoURL { claims["picture"] = .string(picture) }
        claims["firebase"] = [
            "identities": .object(Self.identities(of: user)),
            "sign_in_provider": .string(signInProvider),
        ]
        let signer = try keyRing.currentSigner()
        return try JWS.signRS256(payload: .object(claims), kid: signer.kid, key: signer.privateKey)
    }

    /// `firebase.identities`: `email` and `phone` for the user's own e-mail and number, and
    /// provider id → the user's ids there for each linked provider.
    static func identities(of user: UserRecord) -> [String: JSONValue] {
        var ids: [String: [String]] = [:]
        func add(_ key: String, _ value: String?) {
            guard let value, !(ids[key]?.contains(value) ?? false) else { return }
            ids[key, default: []].append(value)
        }
        add("email", user.email)
        add("phone", user.phoneNumber)
        for link in user.providers {
            add(link.providerID, link.rawID)
            add("email", link.email)
        }
        return ids.mapValues { .array($0.map(JSONValue.string)) }
    }

    /// Verifies a Hearth ID token for `projectID`: RS256 only, a published kid, a valid signature,
    /// matching `iss` and `aud`, not expired. INVALID_ID_TOKEN or TOKEN_EXPIRED otherwise.
    public func verify(_ token: String, projectID: String, now: Date) async throws(AuthError) -> VerifiedIDToken {
        guard let parsed = JWS.parse(token) else { throw AuthError(.invalidIDToken) }
        guard parsed.header["alg"]?.stringValue == "RS256", let kid = parsed.header["kid"]?.stringValue else {
            throw AuthError(.invalidIDToken)
        }
        var key = keyRing.key(kid: kid)
        if key == nil {
            await keyRing.reloadForUnknownKid()
            key = keyRing.key(kid: kid)
        }
        guard let key, JWS.verifyRS256(parsed, key: key.publicKey) else { throw AuthError(.invalidIDToken) }
        let p = parsed.payload
        guard p["iss"]?.stringValue == Self.issuer(projectID: projectID), p["aud"]?.stringValue == projectID,
            let uid = p["sub"]?.stringValue, !uid.isEmpty,
            let iat = p["iat"]?.doubleValue, let exp = p["exp"]?.doubleValue
        else { throw AuthError(.invalidIDToken) }
        if iat > now.timeIntervalSince1970 + clockSkew { throw AuthError(.invalidIDToken) }
        if exp <= now.timeIntervalSince1970 { throw AuthError(.tokenExpired) }
        let authTime = p["auth_time"]?.doubleValue ?? iat
        return VerifiedIDToken(
            uid: uid, projectID: projectID, issuedAt: Date(timeIntervalSince1970: iat),
            authTime: Date(timeIntervalSince1970: authTime), expiresAt: Date(timeIntervalSince1970: exp),
            signInProvider: p["firebase"]?["sign_in_provider"]?.stringValue, claims: p)
    }
}
