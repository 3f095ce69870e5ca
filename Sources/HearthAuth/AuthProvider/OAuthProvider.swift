import Foundation

/// Builds credentials from tokens an identity provider's own SDK handed the app.
public final class OAuthProvider: Sendable {
    /// The generic OAuth provider id.
    public static let id = "oauth"

    public let providerID: String

    public init(providerID: String) {
        self.providerID = providerID
    }

    /// A credential from an OpenID Connect ID token (and its raw nonce, for Apple and Facebook
    /// Limited Login) and, optionally, an access token.
    public static func credential(
        providerID: AuthProviderID, idToken: String, rawNonce: String? = nil, accessToken: String? = nil
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
