import Foundation
import Synchronization

/// Builds credentials from tokens an identity provider's own SDK handed the app, or signs in
/// through the provider's web page (`OAuthProvider(providerID: "github.com")`).
public final class OAuthProvider: FederatedAuthProvider, Sendable {
    /// The generic OAuth provider id, as FirebaseAuth spells it.
    public static let id = "OAuth"

    public let providerID: String
    let auth: Auth
    private let request = Mutex<(scopes: [String]?, customParameters: [String: String]?)>((nil, nil))

    /// OAuth scopes to ask the provider for, beyond its defaults (`["repo", "user:email"]`).
    public var scopes: [String]? {
        get { request.withLock { $0.scopes } }
        set { request.withLock { $0.scopes = newValue } }
    }

    /// Extra parameters for the provider's authorization request (`["prompt": "consent"]`).
    public var customParameters: [String: String]? {
        get { request.withLock { $0.customParameters } }
        set { request.withLock { $0.customParameters = newValue } }
    }

    public init(providerID: String, auth: Auth = Auth.auth()) {
        self.providerID = providerID
        self.auth = auth
    }

    public convenience init(providerID: AuthProviderID, auth: Auth = Auth.auth()) {
        self.init(providerID: providerID.rawValue, auth: auth)
    }

    public static func provider(providerID: AuthProviderID) -> OAuthProvider {
        OAuthProvider(providerID: providerID)
    }

    public static func provider(providerID: AuthProviderID, auth: Auth) -> OAuthProvider {
        OAuthProvider(providerID: providerID, auth: auth)
    }

    // MARK: Web sign-in

    /// Opens the provider's sign-in page through the server's auth handler (`/__/auth/handler`)
    /// and returns a credential for `signIn(with:)`, `link(with:)` or `reauthenticate(with:)`.
    ///
    /// Needs `ASWebAuthenticationSession` (iOS, macOS, visionOS) and the URL scheme
    /// `WebSignInRequest.callbackScheme(for:)` names registered by the app. Elsewhere (Linux) it throws
    /// `webInternalError`: sign in with the provider's own SDK and `OAuthProvider.credential(…)` instead.
    public func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        let (scopes, customParameters) = request.withLock { ($0.scopes, $0.customParameters) }
        let web = auth.webSignInRequest(providerID: providerID, scopes: scopes, customParameters: customParameters)
        #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
            let callback = try await WebAuthenticationPresenter().open(
                web.handlerURL, callbackScheme: web.callbackScheme)
            return try web.credential(fromCallback: callback)
        #else
            throw AuthErrorCode.webInternalError.error(
                message:
                    "Web sign-in needs ASWebAuthenticationSession (Apple platforms). Sign in with the provider's SDK "
                    + "and pass its tokens to OAuthProvider.credential(…) instead.")
        #endif
    }

    public func getCredentialWith(
        _ uiDelegate: (any AuthUIDelegate)?, completion: (@MainActor @Sendable (AuthCredential?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.credential(with: uiDelegate) }
    }

    // MARK: Credentials from tokens

    /// A credential from an OpenID Connect ID token and, optionally, an access token.
    public static func credential(providerID: AuthProviderID, idToken: String, accessToken: String? = nil)
        -> OAuthCredential
    {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken)
    }

    /// A credential from an ID token and its raw nonce (Apple, Facebook Limited Login).
    public static func credential(
        providerID: AuthProviderID, idToken: String, rawNonce: String, accessToken: String? = nil
    ) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    /// A credential from an OAuth access token only.
    public static func credential(providerID: AuthProviderID, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID.rawValue, accessToken: accessToken)
    }

    /// A credential for any provider id, including generic OIDC ones (`oidc.…`).
    public static func credential(withProviderID providerID: String, idToken: String, rawNonce: String?)
        -> OAuthCredential
    {
        OAuthCredential(providerID: providerID, idToken: idToken, rawNonce: rawNonce)
    }

    /// FirebaseAuth's Objective-C-era spelling of `credential(withProviderID:idToken:rawNonce:)`.
    public static func credential(withProviderID providerID: String, IDToken idToken: String, rawNonce: String?)
        -> OAuthCredential
    {
        OAuthCredential(providerID: providerID, idToken: idToken, rawNonce: rawNonce)
    }

    public static func credential(withProviderID providerID: String, idToken: String, accessToken: String?)
        -> OAuthCredential
    {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken)
    }

    public static func credential(
        withProviderID providerID: String, idToken: String, rawNonce: String?, accessToken: String?
    ) -> OAuthCredential {
        OAuthCredential(providerID: providerID, idToken: idToken, accessToken: accessToken, rawNonce: rawNonce)
    }

    public static func credential(withProviderID providerID: String, accessToken: String) -> OAuthCredential {
        OAuthCredential(providerID: providerID, accessToken: accessToken)
    }

    /// A Sign in with Apple credential. Apple tells the app the user's name only on the first
    /// sign-in; passing it here sends it to the server, which stores it as the display name.
    public static func appleCredential(withIDToken idToken: String, rawNonce: String?, fullName: PersonNameComponents?)
        -> OAuthCredential
    {
        OAuthCredential(
            providerID: AuthProviderID.apple.rawValue, idToken: idToken, rawNonce: rawNonce, fullName: fullName)
    }
}
