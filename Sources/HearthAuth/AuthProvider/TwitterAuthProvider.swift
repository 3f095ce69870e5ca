/// Twitter's OAuth 1.0a token and token secret, from the app's own Twitter sign-in.
public enum TwitterAuthProvider {
    public static let id = AuthProviderID.twitter.rawValue

    public static func credential(withToken token: String, secret: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: token, secret: secret)
    }
}
