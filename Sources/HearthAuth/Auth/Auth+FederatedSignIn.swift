/// Sign-in, linking and re-authentication through a provider's web page (`OAuthProvider`), in
/// FirebaseAuth's async and completion-handler forms. The credential comes from
/// `provider.credential(with:)`, which needs Apple's AuthenticationServices (see `OAuthProvider`).
extension Auth {
    public func signIn(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws
        -> AuthDataResult
    {
        try await signIn(with: provider.credential(with: uiDelegate))
    }

    public func signIn(
        with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?,
        completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.signIn(with: provider.credential(with: uiDelegate)) }
    }
}

extension User {
    public func link(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws
        -> AuthDataResult
    {
        try await link(with: provider.credential(with: uiDelegate))
    }

    public func link(
        with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?,
        completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.link(with: provider.credential(with: uiDelegate)) }
    }

    @discardableResult
    public func reauthenticate(with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?)
        async throws -> AuthDataResult
    {
        try await reauthenticate(with: provider.credential(with: uiDelegate))
    }

    public func reauthenticate(
        with provider: any FederatedAuthProvider, uiDelegate: (any AuthUIDelegate)?,
        completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.reauthenticate(with: provider.credential(with: uiDelegate)) }
    }
}
