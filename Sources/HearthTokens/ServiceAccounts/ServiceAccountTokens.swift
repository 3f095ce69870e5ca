import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthStore

/// What a valid admin access token stands for.
public struct AdminAccessToken: Sendable, Equatable {
    public var keyID: String
    public var clientEmail: String
    public var projectID: String
    public var expiresAt: Date

    public init(keyID: String, clientEmail: String, projectID: String, expiresAt: Date) {
        self.keyID = keyID
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.expiresAt = expiresAt
    }
}

/// The JWTs that service-account keys take part in: assertions their holders sign (RFC 7523 JWT-bearer grants,
/// custom tokens) and the short-lived admin access tokens Hearth issues in exchange.
///
/// Access tokens are RS256 JWTs signed by Hearth's own key ring with the header type `at+jwt` (RFC 9068) and
/// Hearth's admin audience, so no ID token (type `JWT`, audience a project) can pass for one. Revoking the
/// service-account key ends its access tokens too: the caller checks the key on every use.
public struct ServiceAccountTokens: Sendable {
    public let keyRing: SigningKeyRing
    public static let accessTokenType = "at+jwt"
    public static let adminAudience = "https://hearth.invalid/admin"
    public static let accessTokenLifetime = 3600

    public init(keyRing: SigningKeyRing) {
        self.keyRing = keyRing
    }

    /// Longest lifetime accepted for an assertion or custom token (`exp - iat`), as Google allows.
    public static let maxAssertionLifetime: Double = 3600

    /// Whether `parsed` is an RS256 JWT signed by `key`, within its lifetime at `now` (60 s of skew).
    /// The claims are the caller's to check.
    public static func isSigned(_ parsed: JWS.Parsed, by key: ServiceAccountKey, now: Date) -> Bool {
        guard key.revokedAt == nil, parsed.header["alg"]?.stringValue == "RS256",
            let publicKey = try? _RSA.Signing.PublicKey(derRepresentation: key.publicKey),
            JWS.verifyRS256(parsed, key: publicKey),
            let iat = parsed.payload["iat"]?.doubleValue, let exp = parsed.payload["exp"]?.doubleValue
        else { return false }
        let t = now.timeIntervalSince1970
        return iat <= t + 60 && exp > t - 60 && exp - iat <= maxAssertionLifetime
            && JWS.hasStarted(parsed.payload, now: now, skew: 60)
    }

    /// Audiences of a self-signed JWT made for the Identity Toolkit API: google-auth's JWT access uses the
    /// service's root URL (`https://identitytoolkit.googleapis.com/`) when no scopes are given.
    public static let jwtAccessAudiences: Set<String> = [
        "https://identitytoolkit.googleapis.com/", "https://identitytoolkit.googleapis.com",
    ]
    /// OAuth scopes that grant the Identity Toolkit API; google-auth puts them in `scope` (space-separated)
    /// instead of an audience when the credentials were made with scopes, as the Admin SDKs make them.
    public static let adminScopes: Set<String> = [
        "https://www.googleapis.com/auth/identitytoolkit", "https://www.googleapis.com/auth/firebase",
        "https://www.googleapis.com/auth/cloud-platform",
    ]

    /// Whether `parsed` is a self-signed "JWT access" token of `key` meant for this API (Google's AIP-4111):
    /// RS256 by the key, `iss` = `sub` = its client e-mail, at most an hour long, and either an Identity Toolkit
    /// audience or, with no audience at all, an admin scope. Everything else the key signs is refused even
    /// though the signature is good: a custom token (Firebase's custom-token audience, `uid`, `claims`) is
    /// handed to end users' devices, and a JWT-bearer grant assertion (audience: a token endpoint) is only for
    /// the token endpoint; either accepted here would make its holder an administrator.
    public static func isJWTAccess(_ parsed: JWS.Parsed, by key: ServiceAccountKey, now: Date) -> Bool {
        let p = parsed.payload
        guard parsed.header["typ"]?.stringValue != accessTokenType,
            p["iss"]?.stringValue == key.clientEmail, p["sub"]?.stringValue == key.clientEmail,
            p["uid"] == nil, p["claims"] == nil
        else { return false }
        if let audience = p["aud"] {
            guard let audience = audience.stringValue, jwtAccessAudiences.contains(audience) else { return false }
        } else {
            let scopes = (p["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
            guard scopes.contains(where: adminScopes.contains) else { return false }
        }
        return isSigned(parsed, by: key, now: now)
    }

    public func mintAccessToken(for key: ServiceAccountKey, now: Date) async throws -> String {
        let iat = now.secondsSince1970
        let claims: JSONValue = [
            "iss": .string(Self.adminAudience), "aud": .string(Self.adminAudience),
            "sub": .string(key.clientEmail), "key_id": .string(key.keyID), "project_id": .string(key.projectID),
            "iat": .number(Double(iat)), "exp": .number(Double(iat + Int64(Self.accessTokenLifetime))),
        ]
        let signer = try await keyRing.signer()
        return try JWS.signRS256(payload: claims, kid: signer.kid, key: signer.privateKey, type: Self.accessTokenType)
    }

    /// The access token's facts, or nil when it is not a live access token Hearth issued.
    public func verifyAccessToken(_ token: String, now: Date) async -> AdminAccessToken? {
        guard let parsed = JWS.parse(token), parsed.header["alg"]?.stringValue == "RS256",
            parsed.header["typ"]?.stringValue == Self.accessTokenType, let kid = parsed.header["kid"]?.stringValue
        else { return nil }
        let key = await keyRing.verificationKey(kid: kid)
        let p = parsed.payload
        guard let key, JWS.verifyRS256(parsed, key: key.publicKey),
            p["aud"]?.stringValue == Self.adminAudience,
            let keyID = p["key_id"]?.stringValue, let email = p["sub"]?.stringValue,
            let project = p["project_id"]?.stringValue, let exp = p["exp"]?.doubleValue,
            exp > now.timeIntervalSince1970, JWS.hasStarted(p, now: now, skew: 60)
        else { return nil }
        return AdminAccessToken(
            keyID: keyID, clientEmail: email, projectID: project, expiresAt: Date(timeIntervalSince1970: exp))
    }
}
