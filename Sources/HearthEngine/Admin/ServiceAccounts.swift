import Foundation
import HearthCore
import HearthStore
import HearthTokens

extension AuthEngine {
    public static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    public var serviceAccountTokens: ServiceAccountTokens { ServiceAccountTokens(keyRing: idTokens.keyRing) }

    /// The token endpoint's JWT-bearer grant (RFC 7523 §2.1), as google-auth performs it for a service-account
    /// JSON file: an assertion signed by a live key, `iss` its client e-mail, `aud` this token endpoint.
    public func exchangeServiceAccountAssertion(grantType: String?, assertion: String?) async throws
        -> (accessToken: String, expiresIn: Int)
    {
        guard let grantType = grantType.nonEmpty, let assertion = assertion.nonEmpty else {
            throw AuthError(.oauthInvalidRequest, "grant_type and assertion are required.")
        }
        guard grantType == Self.jwtBearerGrant else { throw AuthError(.oauthUnsupportedGrantType, grantType) }
        guard let parsed = JWS.parse(assertion), let kid = parsed.header["kid"]?.stringValue,
            let key = try await store.serviceAccountKey(keyID: kid)
        else { throw AuthError(.oauthInvalidGrant, "Invalid JWT: unknown or missing key id.") }
        let now = clock.now()
        guard key.revokedAt == nil, parsed.payload["iss"]?.stringValue == key.clientEmail,
            let audience = parsed.payload["aud"]?.stringValue, audience.hasSuffix("/token"),
            parsed.payload["uid"] == nil, parsed.payload["claims"] == nil,
            ServiceAccountTokens.isSigned(parsed, by: key, now: now)
        else {
            throw AuthError(.oauthInvalidGrant, "Invalid JWT Signature, issuer, audience or lifetime.")
        }
        logger.info("admin access token issued", metadata: ["project": "\(key.projectID)", "key": "\(key.keyID)"])
        return (try await serviceAccountTokens.mintAccessToken(for: key, now: now), ServiceAccountTokens.accessTokenLifetime)
    }

    /// The service account behind an admin bearer token; UNAUTHENTICATED unless it is live and its key has not
    /// been revoked. Two kinds are accepted: access tokens from the token endpoint, and JWTs the service
    /// account signs itself for this API ("JWT access", see `ServiceAccountTokens.isJWTAccess`), which
    /// google-auth sends for files whose universe is not Google's. Custom tokens and grant assertions, though
    /// signed by the same key, are refused.
    public func authenticateAdmin(accessToken: String) async throws -> AdminAccessToken {
        let now = clock.now()
        if let access = await serviceAccountTokens.verifyAccessToken(accessToken, now: now),
            let key = try await store.serviceAccountKey(keyID: access.keyID), key.revokedAt == nil
        {
            return access
        }
        if let parsed = JWS.parse(accessToken), let kid = parsed.header["kid"]?.stringValue,
            let key = try await store.serviceAccountKey(keyID: kid),
            ServiceAccountTokens.isJWTAccess(parsed, by: key, now: now), let exp = parsed.payload["exp"]?.doubleValue
        {
            return AdminAccessToken(
                keyID: key.keyID, clientEmail: key.clientEmail, projectID: key.projectID,
                expiresAt: Date(timeIntervalSince1970: exp))
        }
        throw AuthError(
            .unauthenticated,
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
        )
    }
}

/// The operator's key changes (`hearth service-accounts create|revoke`, `hearth keys rotate`), each an audit event.
extension AuthEngine {
    /// Registers the public half of a new service-account key.
    public func registerServiceAccountKey(_ key: ServiceAccountKey) async throws {
        try await audited("serviceAccount.create", scope: key.projectID) { change in
            try await store.insertServiceAccountKey(key)
            change.after = ["keyId": .string(key.keyID), "clientEmail": .string(key.clientEmail)]
        }
    }

    /// Revokes a service-account key; false when no active key has that id.
    public func revokeServiceAccountKey(keyID: String) async throws -> Bool {
        let key = try await store.serviceAccountKey(keyID: keyID)
        return try await audited("serviceAccount.revoke", scope: key?.projectID ?? projects.defaultProjectID) { change in
            change.before = ["keyId": .string(keyID), "clientEmail": key.map { .string($0.clientEmail) } ?? .null]
            guard try await store.revokeServiceAccountKey(keyID: keyID, at: clock.now()) else {
                throw AuthError(.notFound, "no active key \(keyID)")
            }
            change.after = ["keyId": .string(keyID), "revoked": true]
            return true
        }
    }

    /// Adds a signing key that signs after `lead` seconds; its kid. Keys serve every project: the event is the
    /// default project's.
    public func rotateSigningKey(lead: TimeInterval) async throws -> String {
        try await audited("keys.rotate", scope: projects.defaultProjectID) { change in
            let kid = try await idTokens.keyRing.rotate(lead: lead)
            change.after = ["kid": .string(kid), "leadSeconds": .number(lead)]
            return kid
        }
    }
}
