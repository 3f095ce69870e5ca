/// GitHub's OAuth access token, from the app's own GitHub sign-in.
public enum GitHubAuthProvider {
    public static let id = AuthProviderID.gitHub.rawValue

    public static func credential(withToken token: String) -> AuthCredential {
        OAuthCredential(providerID: id, accessToken: token)
    }
}
