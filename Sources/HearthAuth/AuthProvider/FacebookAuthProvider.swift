/// Facebook Login's classic access token. (Limited Login gives an ID token instead: use
/// `OAuthProvider.credential(withProviderID: "facebook.com", idToken:rawNonce:)`.)
public enum FacebookAuthProvider {
    public static let id = AuthProviderID.facebook.rawValue

    public static func credential(withAccessToken accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: accessToken)
    }
}
