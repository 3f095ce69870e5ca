import AsyncHTTPClient
import Foundation
import HearthCore
import HearthOutbound
import NIOCore
import Synchronization

/// Verifies provider credentials for `accounts:signInWithIdp`: one remote-JWKS cache per key URL, shared by
/// every provider and project of the server, and the provider-specific rules on top.
public final class IdentityProviders: Sendable {
    let http: ProviderHTTP
    let clock: AuthClock
    private let keySets = Mutex<[String: RemoteKeySet]>([:])
    /// OIDC discovery answers: issuer → (document, fetched at).
    private let discovered = Mutex<[String: (JSONValue, Date)]>([:])
    static let discoveryLifetime: TimeInterval = 3600
    /// Checks Game Center certificates' chains; keeps their intermediates.
    let gameCenterChain: GameCenterCertificateChain

    /// - Parameter timeout: how long a provider may take to answer before the sign-in fails with INVALID_IDP_RESPONSE.
    public init(
        client: HTTPClient = OutboundHTTP.client, timeout: Duration = .seconds(10), clock: AuthClock = .system
    ) {
        let (seconds, attoseconds) = timeout.components
        let http = ProviderHTTP(
            client: client, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        self.http = http
        self.clock = clock
        self.gameCenterChain = GameCenterCertificateChain(http: http)
    }

    /// The cache for one JWKS URL, created on first use.
    public func keySet(_ url: String) -> RemoteKeySet {
        keySets.withLock { sets in
            if let set = sets[url] { return set }
            let set = RemoteKeySet(url: url, http: http, clock: clock)
            sets[url] = set
            return set
        }
    }

    /// Verifies `credential` under the project's settings.
    /// - Parameter emulator: emulator mode, where unsigned tokens (and tokens of unconfigured providers) are
    ///   accepted unverified, as the Firebase Auth Emulator accepts them. Never on a production server.
    public func verify(_ credential: ProviderCredential, settings: FederationSettings, emulator: Bool) async throws
        -> FederatedIdentity
    {
        let provider = credential.providerID
        if emulator, let token = credential.idToken ?? credential.accessToken,
            UnsignedToken.isUnsigned(token) || !Self.isConfigured(provider, settings)
        {
            return try Self.unverifiedIdentity(
                provider, claims: UnsignedToken.claims(token), user: credential.appleUser,
                samlResponse: credential.samlResponse)
        }
        let now = clock.now()
        switch provider {
        case FederatedProvider.apple:
            guard let apple = settings.apple else { throw Self.notEnabled(provider) }
            let token = try Self.require(credential.idToken)
            let claims = try await ProviderTokenCheck(
                issuers: apple.issuers, audiences: apple.clientIds, keys: keySet(apple.keysUrl)
            ).verify(token, now: now)
            try NonceRule.check(tokenNonce: claims["nonce"]?.stringValue, rawNonce: credential.rawNonce)
            return AppleIdentity.identity(claims: claims, user: credential.appleUser)

        case FederatedProvider.google:
            guard let google = settings.google else { throw Self.notEnabled(provider) }
            guard let token = credential.idToken else {
                return try await GoogleAccessToken(settings: google, http: http).identity(
                    accessToken: Self.require(credential.accessToken), now: now)
            }
            let claims = try await ProviderTokenCheck(
                issuers: google.issuers, audiences: google.clientIds, keys: keySet(google.keysUrl)
            ).verify(token, now: now)
            try GoogleIdentity.checkHostedDomain(claims, google)
            // Google tokens carry a nonce only when the app asked for one; when the app sends its raw nonce, it must match.
            if credential.rawNonce != nil {
                try NonceRule.check(tokenNonce: claims["nonce"]?.stringValue, rawNonce: credential.rawNonce)
            }
            return GoogleIdentity.identity(claims: claims)

        case FederatedProvider.facebook:
            guard let facebook = settings.facebook else { throw Self.notEnabled(provider) }
            if let token = credential.idToken {
                // Limited Login: an OIDC token for the app.
                let claims = try await ProviderTokenCheck(
                    issuers: facebook.issuers, audiences: [facebook.appId], keys: keySet(facebook.keysUrl)
                ).verify(token, now: now)
                try NonceRule.check(tokenNonce: claims["nonce"]?.stringValue, rawNonce: credential.rawNonce)
                var identity = OIDCIdentity.identity(providerID: provider, claims: claims)
                identity.emailVerified = false
                return identity
            }
            return try await FacebookGraph(settings: facebook, http: http).identity(
                accessToken: Self.require(credential.accessToken))

        case FederatedProvider.twitter:
            guard let twitter = settings.twitter else { throw Self.notEnabled(provider) }
            guard let token = credential.accessToken, let secret = credential.tokenSecret else {
                throw AuthError(.invalidIDPResponse, "Twitter sign-in needs the access token and its secret.")
            }
            return try await TwitterOAuth1(settings: twitter, http: http).identity(accessToken: token, secret: secret)

        default:
            guard provider.hasPrefix("oidc.") else {
                throw AuthError(.invalidProviderID, "Provider Id is not supported: \(provider)")
            }
            guard let oidc = settings.oidc[provider] else { throw Self.notEnabled(provider) }
            let token = try Self.require(credential.idToken)
            let keysURL = try await oidc.keysUrl.asyncOr { try await self.jwksURI(issuer: oidc.issuer) }
            let claims = try await ProviderTokenCheck(
                issuers: [oidc.issuer], audiences: oidc.clientIds, keys: keySet(keysURL)
            ).verify(token, now: now)
            try NonceRule.check(tokenNonce: claims["nonce"]?.stringValue, rawNonce: credential.rawNonce)
            return OIDCIdentity.identity(providerID: provider, claims: claims)
        }
    }

    /// The `jwks_uri` of an OIDC issuer's discovery document.
    func jwksURI(issuer: String) async throws -> String {
        guard let uri = try await discovery(issuer: issuer)["jwks_uri"]?.stringValue else {
            throw AuthError(.invalidIDPResponse, "The OIDC discovery document of \(issuer) names no jwks_uri.")
        }
        return uri
    }

    /// An OIDC issuer's discovery document, cached for an hour; its `issuer` must be the one asked for.
    func discovery(issuer: String) async throws -> JSONValue {
        let now = clock.now()
        if let (document, at) = discovered.withLock({ $0[issuer] }),
            now.timeIntervalSince(at) < Self.discoveryLifetime
        {
            return document
        }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let reply = try await http.get(base + "/.well-known/openid-configuration")
        guard reply.status == 200, reply.json["issuer"]?.stringValue == issuer else {
            throw AuthError(.invalidIDPResponse, "The OIDC discovery document of \(issuer) could not be used.")
        }
        discovered.withLock { $0[issuer] = (reply.json, now) }
        return reply.json
    }

    static func isConfigured(_ provider: String, _ settings: FederationSettings) -> Bool {
        switch provider {
        case FederatedProvider.apple: settings.apple != nil
        case FederatedProvider.google: settings.google != nil
        case FederatedProvider.facebook: settings.facebook != nil
        case FederatedProvider.twitter: settings.twitter != nil
        default: settings.oidc[provider] != nil
        }
    }

    /// Emulator mode: the Firebase Auth Emulator's reading of a fake token's claims.
    static func unverifiedIdentity(
        _ provider: String, claims: [String: JSONValue], user: JSONValue?, samlResponse: String? = nil
    ) throws -> FederatedIdentity {
        var identity: FederatedIdentity
        switch provider {
        case FederatedProvider.apple: identity = AppleIdentity.identity(claims: claims, user: user)
        case FederatedProvider.google:
            identity = GoogleIdentity.identity(claims: claims)
            // The emulator's stand-in for Google's userinfo answer: the scopes a sign-in grants and a locale.
            var scopes = "openid https://www.googleapis.com/auth/userinfo.profile"
            if identity.email != nil { scopes += " https://www.googleapis.com/auth/userinfo.email" }
            identity.rawUserInfo["granted_scopes"] = .string(scopes)
            identity.rawUserInfo["locale"] = identity.rawUserInfo["locale"] ?? .string("en")
        default: identity = OIDCIdentity.identity(providerID: provider, claims: claims)
        }
        // The emulator's rules: `email_verified` as given, and a `screen_name`, for every provider.
        identity.emailVerified = identity.email != nil && (claims["email_verified"]?.looseBool ?? false)
        identity.screenName = claims["screen_name"]?.stringValue
        if provider.hasPrefix("saml."), let samlResponse {
            try FakeSAMLResponse.apply(samlResponse, to: &identity)
        }
        return identity
    }

    static func require(_ token: String?) throws -> String {
        guard let token, !token.isEmpty else {
            throw AuthError(.invalidIDPResponse, "The credential has no id_token or access_token.")
        }
        return token
    }

    static func notEnabled(_ provider: String) -> AuthError {
        AuthError(.operationNotAllowed, "The identity provider \(provider) is not enabled for this project.")
    }
}

extension Optional where Wrapped == String {
    func asyncOr(_ fallback: () async throws -> String) async throws -> String {
        if let self { return self }
        return try await fallback()
    }
}

/// The Firebase Auth Emulator's stand-in for a SAML response (emulator mode only): no XML and no signature, just
/// `{"assertion": {"subject": {"nameId": …}, "attributeStatements": {…}}}`. The name id is the e-mail when it is
/// one; the provider vouches for it; the attribute statements are the raw user info.
enum FakeSAMLResponse {
    static func apply(_ text: String, to identity: inout FederatedIdentity) throws(AuthError) {
        guard let response = (try? JSONValue(parsing: text))?.objectValue else {
            throw AuthError(.invalidIDPResponse, "The SAMLResponse is not a JSON object.")
        }
        guard let assertion = response["assertion"]?.objectValue else {
            throw AuthError(.invalidIDPResponse, "Missing assertion in SAMLResponse.")
        }
        guard let subject = assertion["subject"]?.objectValue else {
            throw AuthError(.invalidIDPResponse, "Missing assertion.subject in SAMLResponse.")
        }
        guard let nameID = subject["nameId"]?.stringValue, !nameID.isEmpty else {
            throw AuthError(.invalidIDPResponse, "Missing assertion.subject.nameId in SAMLResponse.")
        }
        if let email = try? EmailAddress.normalize(nameID) { identity.email = email }
        identity.emailVerified = identity.email != nil
        identity.rawUserInfo = assertion["attributeStatements"]?.objectValue ?? [:]
        identity.signInAttributes = identity.rawUserInfo
    }
}
