import Foundation

/// Tokens from an OAuth or OpenID Connect identity provider (Apple, Google, Facebook, any OIDC).
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    /// The provider's OpenID Connect ID token.
    public let idToken: String?
    /// The provider's OAuth access token.
    public let accessToken: String?
    /// The OAuth 1 token secret (Twitter).
    public let secret: String?
    /// The unhashed nonce whose SHA-256 went into the provider's ID token.
    public let rawNonce: String?
    /// The name Apple gives only on the first sign-in; sent so the server can store it.
    public let fullName: PersonNameComponents?
    /// The server's handle for a credential it has already verified (from an error's
    /// `AuthErrorUserInfoUpdatedCredentialKey`).
    let pendingToken: String?
    /// The provider's redirect back to the auth handler after a web sign-in (it carries the
    /// authorization code), and the session id the flow started with; sent as `requestUri` and
    /// `sessionId` so the server can finish the code exchange.
    let webRedirect: (requestURI: String, sessionID: String)?

    init(
        providerID: String, idToken: String? = nil, accessToken: String? = nil, secret: String? = nil,
        rawNonce: String? = nil, fullName: PersonNameComponents? = nil, pendingToken: String? = nil,
        webRedirect: (requestURI: String, sessionID: String)? = nil
    ) {
        self.webRedirect = webRedirect
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        self.rawNonce = rawNonce
        self.fullName = fullName
        self.pendingToken = pendingToken
        super.init(provider: providerID)
    }

    /// The credential a sign-in answer hands back (for `AuthDataResult.credential` and the
    /// `credentialAlreadyInUse` recovery path), or nil when the answer carries no provider token.
    convenience init?(idpResponse r: JSON) {
        let idToken = r["oauthIdToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = r["oauthAccessToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let secret = r["oauthTokenSecret"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let pendingToken = r["pendingToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        guard idToken != nil || accessToken != nil || secret != nil || pendingToken != nil else { return nil }
        self.init(
            providerID: r["providerId"]?.string ?? OAuthProvider.id, idToken: idToken, accessToken: accessToken,
            secret: secret, pendingToken: pendingToken)
    }
}
