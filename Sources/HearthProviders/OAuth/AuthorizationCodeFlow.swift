import Foundation
import HearthCore

/// A provider set up for the browser sign-in: where to send the user, where to exchange the code, and whether the
/// answer is an OpenID Connect ID token (generic `oidc.*` providers, Google) or an access token for a user-info
/// endpoint (`OAuthSettings` providers).
public struct AuthorizationCodeFlow: Sendable {
    public enum Kind: Sendable {
        /// The token answer's `id_token` is verified like any OIDC token, and must carry the request's nonce.
        case oidc(OIDCSettings)
        /// The access token reads the user's profile.
        case userInfo(url: String, emailsURL: String?)
        /// The token answer's `id_token` is Google's (its issuers and keys), for the web client, with the nonce, and
        /// of the project's Workspace domain when it names one.
        case google(GoogleSettings)
    }

    public var providerID: String
    public var authorizationURL: String
    public var tokenURL: String
    public var clientID: String
    public var clientSecret: String
    /// Scopes asked for when the app names none.
    public var defaultScopes: [String]
    public var kind: Kind
    /// Parameters the provider's own settings add to the authorization request (Google's `hd`).
    public var parameters: [(String, String)] = []

    public var usesNonce: Bool {
        switch kind {
        case .oidc, .google: true
        case .userInfo: false
        }
    }

    /// The authorization request: `response_type=code` with PKCE (S256), the app's extra scopes and parameters.
    /// Parameters the flow itself sets cannot be overridden by the app's `customParameters`.
    public func authorizationRequest(
        redirectURI: String, state: String, codeChallenge: String, nonce: String?, scopes: [String],
        customParameters: [String: String]
    ) -> String {
        var wanted = defaultScopes
        for scope in scopes where !wanted.contains(scope) { wanted.append(scope) }
        var query: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("scope", wanted.joined(separator: " ")), ("state", state), ("code_challenge", codeChallenge),
            ("code_challenge_method", "S256"),
        ]
        if let nonce { query.append(("nonce", nonce)) }
        query += parameters
        let reserved = Set(query.map(\.0) + ["client_secret", "response_mode"])
        for (key, value) in customParameters.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            query.append((key, value))
        }
        return ProviderHTTP.url(authorizationURL, query)
    }
}

/// What the provider's token endpoint handed back, verified into an identity.
public struct AuthorizationCodeResult: Sendable {
    public var identity: FederatedIdentity
    public var accessToken: String?
    public var idToken: String?
    /// OAuth 1.0a (Twitter): the access token's secret.
    public var tokenSecret: String? = nil
}

extension IdentityProviders {
    /// The browser flow of `provider` under the project's settings; OPERATION_NOT_ALLOWED when the provider is not
    /// set up for it (no client secret), INVALID_PROVIDER_ID when Hearth has no browser flow for it.
    public func authorizationCodeFlow(_ provider: String, settings: FederationSettings) async throws
        -> AuthorizationCodeFlow
    {
        if provider.hasPrefix("oidc.") {
            guard let oidc = settings.oidc[provider], let secret = oidc.clientSecret,
                let clientID = oidc.clientIds.first
            else { throw Self.notEnabled(provider) }
            var authorizationURL = oidc.authorizationUrl
            var tokenURL = oidc.tokenUrl
            if authorizationURL == nil || tokenURL == nil {
                let document = try await discovery(issuer: oidc.issuer)
                authorizationURL = authorizationURL ?? document["authorization_endpoint"]?.stringValue
                tokenURL = tokenURL ?? document["token_endpoint"]?.stringValue
            }
            guard let authorizationURL, let tokenURL else {
                throw AuthError(
                    .invalidIDPResponse, "The OIDC provider \(oidc.issuer) names no authorization or token endpoint.")
            }
            return AuthorizationCodeFlow(
                providerID: provider, authorizationURL: authorizationURL, tokenURL: tokenURL, clientID: clientID,
                clientSecret: secret, defaultScopes: ["openid"] + oidc.scopes.filter { $0 != "openid" },
                kind: .oidc(oidc))
        }
        if provider == FederatedProvider.google {
            guard let google = settings.google, let secret = google.clientSecret, let clientID = google.clientIds.first
            else { throw Self.notEnabled(provider) }
            var flow = AuthorizationCodeFlow(
                providerID: provider, authorizationURL: google.authorizationUrl, tokenURL: google.tokenUrl,
                clientID: clientID, clientSecret: secret, defaultScopes: ["openid", "email", "profile"],
                kind: .google(google))
            // Google's account chooser then offers only that domain's accounts; the ID token's `hd` is still checked.
            if let domain = google.hostedDomain { flow.parameters = [("hd", domain)] }
            return flow
        }
        guard let preset = OAuthPreset.all[provider] else {
            throw AuthError(.invalidProviderID, "Provider Id is not supported for browser sign-in: \(provider)")
        }
        guard let oauth = settings.oauth[provider] else { throw Self.notEnabled(provider) }
        return AuthorizationCodeFlow(
            providerID: provider, authorizationURL: oauth.authorizationUrl ?? preset.authorizationURL,
            tokenURL: oauth.tokenUrl ?? preset.tokenURL, clientID: oauth.clientId, clientSecret: oauth.clientSecret,
            defaultScopes: oauth.scopes ?? preset.scopes,
            kind: .userInfo(
                url: oauth.userInfoUrl ?? preset.userInfoURL, emailsURL: oauth.emailsUrl ?? preset.emailsURL))
    }

    /// Exchanges an authorization code (with its PKCE verifier and the client secret) and verifies the answer:
    /// the ID token for OIDC (issuer, audience, signature, `nonce`), the user-info endpoint otherwise.
    public func redeem(
        _ flow: AuthorizationCodeFlow, code: String, codeVerifier: String, redirectURI: String, nonce: String?
    ) async throws -> AuthorizationCodeResult {
        let reply = try await http.postForm(
            flow.tokenURL,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("client_id", flow.clientID), ("client_secret", flow.clientSecret), ("code_verifier", codeVerifier),
            ])
        // GitHub answers a refused code with 200 and an `error` field.
        guard reply.status == 200, reply.json["error"] == nil,
            let accessToken = reply.json["access_token"]?.stringValue
        else {
            let reason = reply.json["error"]?.stringValue ?? "status \(reply.status)"
            throw AuthError(.invalidIDPResponse, "The provider refused the authorization code (\(reason)).")
        }
        let idToken = reply.json["id_token"]?.stringValue
        switch flow.kind {
        case .oidc(let oidc):
            let keysURL = try await oidc.keysUrl.asyncOr { try await self.jwksURI(issuer: oidc.issuer) }
            let claims = try await verifyCodeFlowIDToken(
                idToken, issuers: [oidc.issuer], clientID: flow.clientID, keysURL: keysURL, nonce: nonce)
            var identity = OIDCIdentity.identity(providerID: flow.providerID, claims: claims)
            // The nonce was Hearth's own and the pending sign-in is used once: no single-use claim on it.
            identity.tokenNonce = nil
            return AuthorizationCodeResult(identity: identity, accessToken: accessToken, idToken: idToken)
        case .google(let google):
            let claims = try await verifyCodeFlowIDToken(
                idToken, issuers: google.issuers, clientID: flow.clientID, keysURL: google.keysUrl, nonce: nonce)
            try GoogleIdentity.checkHostedDomain(claims, google)
            var identity = GoogleIdentity.identity(claims: claims)
            identity.tokenNonce = nil
            return AuthorizationCodeResult(identity: identity, accessToken: accessToken, idToken: idToken)
        case .userInfo(let url, let emailsURL):
            let identity = try await OAuthUserInfo.identity(
                providerID: flow.providerID, accessToken: accessToken, userInfoURL: url, emailsURL: emailsURL,
                http: http)
            return AuthorizationCodeResult(identity: identity, accessToken: accessToken, idToken: idToken)
        }
    }

    /// The ID token of a code exchange: signed by the provider's keys, issued to this client, carrying the nonce
    /// the sign-in sent.
    func verifyCodeFlowIDToken(
        _ idToken: String?, issuers: [String], clientID: String, keysURL: String, nonce: String?
    ) async throws -> [String: JSONValue] {
        guard let idToken else { throw AuthError(.invalidIDPResponse, "The provider's token answer has no id_token.") }
        let claims = try await ProviderTokenCheck(issuers: issuers, audiences: [clientID], keys: keySet(keysURL))
            .verify(idToken, now: clock.now())
        guard let nonce, let tokenNonce = claims["nonce"]?.stringValue,
            ConstantTime.equals(Array(tokenNonce.utf8), Array(nonce.utf8))
        else { throw AuthError(.missingOrInvalidNonce, "The ID token does not carry the sign-in's nonce.") }
        return claims
    }
}
