/// Google Sign-In's ID token and access token.
public enum GoogleAuthProvider {
    public static let id = AuthProviderID.google.rawValue

    public static func credential(withIDToken idToken: String, accessToken: String) -> AuthCredential {
        OAuthCredential(providerID: id, idToken: idToken, accessToken: accessToken)
    }
}
