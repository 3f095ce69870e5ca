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
    /// Emulator mode: tokens are unsigned (`alg: none`), as the Firebase Auth Emulator issues them and as the
    /// Admin SDKs' emulator verifiers expect. Never set on a production server.
    public var unsigned = false
    /// Tokens already verified (by this service and its copies), so a repeated token skips parsing and RSA.
    let verified = VerifiedTokenCache()

    public init(keyRing: SigningKeyRing, unsigned: Bool = false) {
        self.keyRing = keyRing
        self.unsigned = unsigned
    }

    public static func issuer(projectID: String) -> String { "https://securetoken.google.com/\(projectID)" }
    public static func sessionCookieIssuer(projectID: String) -> String {
        "https://session.firebase.google.com/\(projectID)"
    }

    /// Session cookies live from five minutes to two weeks, as Firebase allows.
    public static let sessionCookieLifetimes = 300...1_209_600

    /// An ID token for `user`. `extraClaims` (a custom token's claims, kept with the session) join the user's own
    /// custom claims at the top level; reserved names are never taken from either.
    public func mint(
        user: UserRecord, signInProvider: String, authTime: Date, lifetimeSeconds: Int, now: Date,
        extraClaims: String? = nil, secondFactor: SecondFactorClaim? = nil,
        signInAttributes: [String: JSONValue]? = nil
    ) throws -> String {
        let iat = now.secondsSince1970
        var claims: [String: JSONValue] = [:]
        for text in [user.customClaims, extraClaims] {
            guard let text, case .object(let extra)? = try? JSONValue(parsing: text) else { continue }
            for (k, v) in extra where !CustomClaims.reserved.contains(k) { claims[k] = v }
        }
        // A tenant's user is still the project's: audience and issuer name the project, `firebase.tenant` the tenant.
        let (project, tenant) = TenantScope.split(user.projectID)
        claims["iss"] = .string(Self.issuer(projectID: project))
        claims["aud"] = .string(project)
        claims["auth_time"] = .number(Double(authTime.secondsSince1970))
        claims["user_id"] = .string(user.uid)
        claims["sub"] = .string(user.uid)
        claims["iat"] = .number(Double(iat))
        claims["exp"] = .number(Double(iat + Int64(lifetimeSeconds)))
        if let email = user.email { claims["email"] = .string(email) }
        // Also without an address when something (a blocking function) marked the account verified.
        if user.email != nil || user.emailVerified { claims["email_verified"] = .bool(user.emailVerified) }
        if let phone = user.phoneNumber { claims["phone_number"] = .string(phone) }
        if let name = user.displayName { claims["name"] = .string(name) }
        if let picture = user.photoURL { claims["picture"] = .string(picture) }
        var firebase: [String: JSONValue] = [
            "identities": .object(Self.identities(of: user)),
            "sign_in_provider": .string(signInProvider),
        ]
        if let tenant { firebase["tenant"] = .string(tenant) }
        if let secondFactor {
            firebase["sign_in_second_factor"] = .string(secondFactor.factorID)
            firebase["second_factor_identifier"] = .string(secondFactor.enrollmentID)
        }
        if let signInAttributes { firebase["sign_in_attributes"] = .object(signInAttributes) }
        claims["firebase"] = .object(firebase)
        // Firebase's anonymous tokens also say so at the top level.
        if signInProvider == ProviderID.anonymous { claims["provider_id"] = .string(ProviderID.anonymous) }
        return try sign(claims)
    }

    /// A session cookie (`createSessionCookie`): the ID token's claims under the session issuer, with a new
    /// lifetime, signed by the same keys.
    public func mintSessionCookie(from token: VerifiedIDToken, lifetimeSeconds: Int, now: Date) throws -> String {
        var claims = token.claims
        let iat = now.secondsSince1970
        claims["iss"] = .string(Self.sessionCookieIssuer(projectID: TenantScope.split(token.projectID).project))
        claims["iat"] = .number(Double(iat))
        claims["exp"] = .number(Double(iat + Int64(lifetimeSeconds)))
        return try sign(claims)
    }

    /// A blocking-function event JWT, signed as ID tokens are (unsigned in emulator mode), so functions verify it
    /// against the same published keys.
    public func signEvent(_ claims: [String: JSONValue]) throws -> String { try sign(claims) }

    func sign(_ claims: [String: JSONValue]) throws -> String {
        if unsigned { return JWS.unsigned(payload: .object(claims)) }
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

    /// Verifies a Hearth ID token for `projectID` (a scope key: a tenant's token is valid for that tenant only):
    /// RS256 only, a published kid, a valid signature, matching `iss` and `aud`, not expired.
    /// INVALID_ID_TOKEN, TOKEN_EXPIRED or TENANT_ID_MISMATCH otherwise.
    /// With `sessionCookie`, the same for a session cookie, whose issuer differs.
    public func verify(_ token: String, projectID: String, now: Date, sessionCookie: Bool = false)
        async throws(AuthError) -> VerifiedIDToken
    {
        // A token verified before for the same scope: only what time or key retirement can change is checked again.
        if let hit = verified.entry(for: token), hit.token.projectID == projectID, hit.sessionCookie == sessionCookie,
            hit.kid.map({ keyRing.key(kid: $0) != nil }) ?? unsigned
        {
            if hit.token.expiresAt.timeIntervalSince1970 <= now.timeIntervalSince1970 {
                throw AuthError(.tokenExpired)
            }
            return hit.token
        }
        guard let parsed = JWS.parse(token) else { throw AuthError(.invalidIDToken) }
        var signedBy: String? = nil
        if unsigned && parsed.header["alg"]?.stringValue == "none" {
            // Emulator mode accepts its own unsigned tokens, as the Firebase Auth Emulator does.
        } else {
            guard parsed.header["alg"]?.stringValue == "RS256", let kid = parsed.header["kid"]?.stringValue else {
                throw AuthError(.invalidIDToken)
            }
            let key = await keyRing.verificationKey(kid: kid)
            guard let key, JWS.verifyRS256(parsed, key: key.publicKey) else { throw AuthError(.invalidIDToken) }
            signedBy = key.kid
        }
        let (project, tenant) = TenantScope.split(projectID)
        let issuer = sessionCookie ? Self.sessionCookieIssuer(projectID: project) : Self.issuer(projectID: project)
        let p = parsed.payload
        guard p["iss"]?.stringValue == issuer, p["aud"]?.stringValue == project,
            let uid = p["sub"]?.stringValue, !uid.isEmpty,
            let iat = p["iat"]?.doubleValue, let exp = p["exp"]?.doubleValue
        else { throw AuthError(.invalidIDToken) }
        if iat > now.timeIntervalSince1970 + clockSkew || !JWS.hasStarted(p, now: now, skew: clockSkew) {
            throw AuthError(.invalidIDToken)
        }
        if exp <= now.timeIntervalSince1970 { throw AuthError(.tokenExpired) }
        if p["firebase"]?["tenant"]?.stringValue != tenant { throw AuthError(.tenantIDMismatch) }
        let authTime = p["auth_time"]?.doubleValue ?? iat
        let result = VerifiedIDToken(
            uid: uid, projectID: projectID, issuedAt: Date(timeIntervalSince1970: iat),
            authTime: Date(timeIntervalSince1970: authTime), expiresAt: Date(timeIntervalSince1970: exp),
            signInProvider: p["firebase"]?["sign_in_provider"]?.stringValue, claims: p)
        verified.insert(.init(token: result, kid: signedBy, sessionCookie: sessionCookie), for: token)
        return result
    }

    /// The tenant an ID token names (`firebase.tenant`), without checking it: what a request's scope is inferred
    /// from before the token is verified against that scope. A token verified before is not parsed again.
    public func peekTenant(_ token: String) -> String? {
        if let hit = verified.entry(for: token) { return hit.tenant }
        return JWS.parse(token)?.payload["firebase"]?["tenant"]?.stringValue
    }
}
