import Crypto
import Foundation
import HearthCore
import HearthProviders
import HearthStore

/// The start of a browser sign-in: the auth handler's query (`/__/auth/handler?providerId=…`) or
/// `accounts:createAuthUri` with a `providerId`.
public struct BrowserSignInStart: Sendable {
    public var providerID: String
    /// Lower-case hex SHA-256 of the app's raw session id; `signInWithIdp` must present the raw id.
    public var sessionHash: String
    /// Where the user goes back to after the provider: the app's callback, or `continueUri`.
    public var redirectURL: String
    /// The `redirect_uri` for the provider: Hearth's handler, or `continueUri`.
    public var callbackURL: String
    public var scopes: [String]
    public var customParameters: [String: String]

    public init(
        providerID: String, sessionHash: String, redirectURL: String, callbackURL: String, scopes: [String] = [],
        customParameters: [String: String] = [:]
    ) {
        self.providerID = providerID
        self.sessionHash = sessionHash
        self.redirectURL = redirectURL
        self.callbackURL = callbackURL
        self.scopes = scopes
        self.customParameters = customParameters
    }
}

/// Where to send the user to sign in at the provider, and the `state` (for Twitter, the request token) the provider
/// will return with: the web SDK's handler keeps its event under it in the browser until the provider returns.
public struct BrowserAuthorization: Sendable {
    public var url: String
    public var state: String
}

/// What `accounts:signInWithIdp` presents to finish a browser sign-in: the `state` and `code` of its `requestUri`,
/// and the raw session id.
public struct BrowserSignInResponse: Sendable {
    public var state: String
    public var code: String
    public var sessionID: String?

    public init(state: String, code: String, sessionID: String?) {
        self.state = state
        self.code = code
        self.sessionID = sessionID
    }
}

extension AuthEngine {
    /// How long the user has to finish at the provider.
    static let authorizationLifetime: TimeInterval = 600

    /// Stores a pending authorization and returns the provider's authorization URL to send the user to.
    public func startBrowserSignIn(_ start: BrowserSignInStart, origin: RequestOrigin) async throws
        -> BrowserAuthorization
    {
        guard start.sessionHash.count == 64, start.sessionHash.allSatisfy(\.isHexDigit) else {
            throw AuthError(.invalidArgument, "sessionId must be the SHA-256 (hex) of the app's session id.")
        }
        try await consumeLimit(
            "browser-sign-in:ip:\(origin.clientIP ?? "-")",
            limit: origin.project.rateLimits.browserSignInsPerIPPerHour, windowSeconds: 3600)
        if start.providerID.lowercased() == FederatedProvider.twitter { return try await startTwitter(start, origin) }
        let flow = try await identityProviders.authorizationCodeFlow(
            start.providerID.lowercased(), settings: origin.project.federation)
        let state = random.token(bytes: 32)
        let verifier = random.token(bytes: 32)
        let nonce = flow.usesNonce ? random.token(bytes: 16) : nil
        let now = clock.now()
        try await store.insertPendingAuthorization(
            PendingAuthorization(
                stateHash: Self.stateHash(state), projectID: origin.project.projectID, providerID: flow.providerID,
                sessionHash: start.sessionHash.lowercased(), redirectURL: start.redirectURL,
                callbackURL: start.callbackURL, sealedVerifier: try Self.sealVerifier(verifier, state: state),
                nonce: nonce, createdAt: now, expiresAt: now.addingTimeInterval(Self.authorizationLifetime)))
        logger.info(
            "browser sign-in started",
            metadata: ["project": "\(origin.project.projectID)", "provider": "\(flow.providerID)"])
        let challenge = Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
        let url = flow.authorizationRequest(
            redirectURI: start.callbackURL, state: state, codeChallenge: challenge, nonce: nonce, scopes: start.scopes,
            customParameters: start.customParameters)
        return BrowserAuthorization(url: url, state: state)
    }

    /// The provider's redirect back to the handler, accepted once per state. Returns the pending sign-in (for its
    /// app redirect); with a provider `error` the sign-in is over and forgotten.
    public func returnFromProvider(state: String, failed: Bool) async throws -> PendingAuthorization {
        let now = clock.now()
        let hash = Self.stateHash(state)
        guard let pending = try await store.pendingAuthorization(stateHash: hash, now: now),
            try await store.claimSingleUse(
                "oauth-return:" + Base64URL.encode(hash), until: pending.expiresAt, now: now)
        else {
            throw AuthError(.sessionExpired, "The sign-in is unknown, has expired or has already returned.")
        }
        if failed { _ = try await store.consumePendingAuthorization(stateHash: hash, now: now) }
        return pending
    }

    /// Finishes a browser sign-in for `signInWithIdp`: the session id must be the one the sign-in started with,
    /// the pending authorization is used up, and the code is exchanged with its PKCE verifier.
    func redeemBrowserSignIn(_ response: BrowserSignInResponse, origin: RequestOrigin) async throws
        -> AuthorizationCodeResult
    {
        let refused = AuthError(.invalidIDPResponse, "The sign-in is unknown, expired, used, or of another session.")
        guard let sessionID = response.sessionID, !sessionID.isEmpty else {
            throw AuthError(.invalidIDPResponse, "A browser sign-in needs the sessionId it started with.")
        }
        let now = clock.now()
        let hash = Self.stateHash(response.state)
        guard let pending = try await store.pendingAuthorization(stateHash: hash, now: now) else { throw refused }
        guard pending.projectID == origin.project.projectID,
            ConstantTime.equals(Array(Self.webSessionHash(sessionID).utf8), Array(pending.sessionHash.utf8))
        else {
            // Someone holds the link but not the app's session: worth an operator's attention.
            logger.notice(
                "browser sign-in presented with another session", metadata: ["provider": "\(pending.providerID)"])
            throw refused
        }
        guard let used = try await store.consumePendingAuthorization(stateHash: hash, now: now),
            let verifier = Self.openVerifier(used.sealedVerifier, state: response.state)
        else { throw refused }
        if used.providerID == FederatedProvider.twitter {
            // OAuth 1.0a: the state is the request token, the sealed value its secret, the code the verifier.
            return try await identityProviders.redeemTwitter(
                settings: origin.project.federation, requestToken: response.state, secret: verifier,
                verifier: response.code)
        }
        let flow = try await identityProviders.authorizationCodeFlow(
            used.providerID, settings: origin.project.federation)
        return try await identityProviders.redeem(
            flow, code: response.code, codeVerifier: verifier, redirectURI: used.callbackURL, nonce: used.nonce)
    }

    /// Twitter's OAuth 1.0a has no `state` or PKCE: the request token plays the state (it comes back as
    /// `oauth_token`) and its secret, sealed like a verifier, is what the exchange needs besides the verifier.
    func startTwitter(_ start: BrowserSignInStart, _ origin: RequestOrigin) async throws -> BrowserAuthorization {
        let (url, token, secret) = try await identityProviders.twitterAuthorization(
            settings: origin.project.federation, callback: start.callbackURL, customParameters: start.customParameters)
        let now = clock.now()
        try await store.insertPendingAuthorization(
            PendingAuthorization(
                stateHash: Self.stateHash(token), projectID: origin.project.projectID,
                providerID: FederatedProvider.twitter, sessionHash: start.sessionHash.lowercased(),
                redirectURL: start.redirectURL, callbackURL: start.callbackURL,
                sealedVerifier: try Self.sealVerifier(secret, state: token), nonce: nil, createdAt: now,
                expiresAt: now.addingTimeInterval(Self.authorizationLifetime)))
        logger.info(
            "browser sign-in started",
            metadata: ["project": "\(origin.project.projectID)", "provider": "\(FederatedProvider.twitter)"])
        return BrowserAuthorization(url: url, state: token)
    }

    /// Whether the handler may send the user back to `url`: the app's own callback (`hearth-<project>://firebaseauth/
    /// link`, the scheme HearthAuth registers) exactly, or a page the project authorizes
    /// (`ProjectConfig.authorizesRedirect`), read as a browser reads it. Anything else would make the handler an
    /// open redirect that hands out codes.
    public func isAllowedSignInRedirect(_ url: String, project: ProjectConfig) -> Bool {
        guard let target = BrowserURL(url), !url.contains("#") else { return false }
        if target.scheme == Self.appCallbackScheme(project.firebaseProjectID) {
            return !target.hasCredentials && target.host == .opaque("firebaseauth") && target.port == nil
                && target.rest == "/link"
        }
        return project.authorizesRedirect(to: url)
    }

    /// HearthAuth's callback scheme (`WebSignInRequest.callbackScheme`): `hearth-` and the lower-cased project id
    /// with characters a scheme cannot hold replaced by `-`.
    static func appCallbackScheme(_ projectID: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
        return "hearth-" + String(projectID.lowercased().map { allowed.contains($0) ? $0 : "-" })
    }

    /// Lower-case hex SHA-256, as HearthAuth hashes the session id for the handler URL.
    public static func webSessionHash(_ sessionID: String) -> String {
        SHA256.hash(data: Data(sessionID.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func stateHash(_ state: String) -> [UInt8] { Array(SHA256.hash(data: Data(state.utf8))) }

    /// The verifier is sealed under a key derived from the state, which only the browser and provider see: a copy
    /// of the database alone cannot complete a stolen code's exchange.
    static func sealVerifier(_ verifier: String, state: String) throws -> [UInt8] {
        Array(try AES.GCM.seal(Data(verifier.utf8), using: verifierKey(state)).combined!)
    }

    static func openVerifier(_ sealed: [UInt8], state: String) -> String? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: verifierKey(state))
        else { return nil }
        return String(decoding: plain, as: UTF8.self)
    }

    private static func verifierKey(_ state: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(state.utf8)), info: Data("hearth oauth pkce verifier".utf8),
            outputByteCount: 32)
    }
}
