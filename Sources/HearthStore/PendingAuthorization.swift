import Foundation

/// A browser sign-in waiting for the provider: `/__/auth/handler` sent the user to the provider's authorization
/// endpoint with `state`, and `accounts:signInWithIdp` later exchanges the code the provider returned.
///
/// Kept by SHA-256 of the state. The PKCE verifier is stored sealed under a key derived from the state (which the
/// database never holds), and the app's session id only as the SHA-256 the app sent: a copy of the table cannot
/// redeem a code. Used once (`consumePendingAuthorization`), ten minutes at most.
public struct PendingAuthorization: Sendable, Equatable {
    /// SHA-256 of the `state` parameter.
    public var stateHash: [UInt8]
    /// The scope key (project, or project and tenant) the sign-in belongs to.
    public var projectID: String
    public var providerID: String
    /// Lower-case hex SHA-256 of the app's raw session id, as the handler URL carried it.
    public var sessionHash: String
    /// Where the handler sends the user back to: the app's callback (`hearth-<project>://firebaseauth/link`).
    public var redirectURL: String
    /// The `redirect_uri` given to the provider, which the code exchange must repeat.
    public var callbackURL: String
    /// The PKCE `code_verifier` (for Twitter's OAuth 1.0a, the request token's secret), AES-GCM sealed under a key
    /// derived from the state by the engine.
    public var sealedVerifier: [UInt8]
    /// The OIDC `nonce` sent in the authorization request; the ID token must carry it.
    public var nonce: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        stateHash: [UInt8], projectID: String, providerID: String, sessionHash: String, redirectURL: String,
        callbackURL: String, sealedVerifier: [UInt8], nonce: String?, createdAt: Date, expiresAt: Date
    ) {
        self.stateHash = stateHash
        self.projectID = projectID
        self.providerID = providerID
        self.sessionHash = sessionHash
        self.redirectURL = redirectURL
        self.callbackURL = callbackURL
        self.sealedVerifier = sealedVerifier
        self.nonce = nonce
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
