/// A provider that signs in through the browser (`OAuthProvider(providerID:)`), passed to
/// `Auth.signIn(with:uiDelegate:)`, `User.link(with:uiDelegate:)` and `User.reauthenticate(with:uiDelegate:)`.
public protocol FederatedAuthProvider: AnyObject, Sendable {
    /// Runs the provider's web sign-in and returns the credential it ends with.
    func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential
}
