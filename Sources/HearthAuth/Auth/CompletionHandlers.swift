/// Runs async work and hands its result to a FirebaseAuth-style completion handler on the main
/// actor (FirebaseAuth calls them on the main thread).
func complete<T: Sendable>(
    _ completion: (@MainActor @Sendable (T?, Error?) -> Void)?, _ work: @escaping @Sendable () async throws -> T
) {
    Task {
        do {
            let value = try await work()
            await completion?(value, nil)
        } catch {
            await completion?(nil, error)
        }
    }
}

/// The same for work with no result.
func complete(
    _ completion: (@MainActor @Sendable (Error?) -> Void)?, _ work: @escaping @Sendable () async throws -> Void
) {
    Task {
        do {
            try await work()
            await completion?(nil)
        } catch {
            await completion?(error)
        }
    }
}

/// The completion-handler forms of `Auth`'s async methods.
extension Auth {
    public func signIn(
        withEmail email: String, password: String,
        completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.signIn(withEmail: email, password: password) }
    }

    public func createUser(
        withEmail email: String, password: String,
        completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.createUser(withEmail: email, password: password) }
    }

    public func signInAnonymously(completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil) {
        complete(completion) { try await self.signInAnonymously() }
    }

    public func signIn(
        withCustomToken token: String, completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.signIn(withCustomToken: token) }
    }

    public func signIn(
        with credential: AuthCredential, completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.signIn(with: credential) }
    }

    @available(*, deprecated, renamed: "signIn(with:completion:)")
    public func signInAndRetrieveData(
        with credential: AuthCredential, completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.signIn(with: credential) }
    }

    public func revokeToken(
        withAuthorizationCode authorizationCode: String, completion: (@MainActor @Sendable (Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.revokeToken(withAuthorizationCode: authorizationCode) }
    }

    public func updateCurrentUser(_ user: User?, completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.updateCurrentUser(user) }
    }

    public func fetchSignInMethods(
        forEmail email: String, completion: (@MainActor @Sendable ([String]?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.fetchSignInMethods(forEmail: email) }
    }
}

/// The completion-handler forms of `User`'s async methods.
extension User {
    public func getIDToken(completion: (@MainActor @Sendable (String?, Error?) -> Void)?) {
        complete(completion) { try await self.getIDToken() }
    }

    public func getIDTokenForcingRefresh(
        _ forceRefresh: Bool, completion: (@MainActor @Sendable (String?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.getIDToken(forcingRefresh: forceRefresh) }
    }

    public func getIDTokenResult(completion: (@MainActor @Sendable (AuthTokenResult?, Error?) -> Void)?) {
        complete(completion) { try await self.getIDTokenResult(forcingRefresh: false) }
    }

    public func getIDTokenResult(
        forcingRefresh forceRefresh: Bool, completion: (@MainActor @Sendable (AuthTokenResult?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.getIDTokenResult(forcingRefresh: forceRefresh) }
    }

    public func updatePhoneNumber(
        _ credential: PhoneAuthCredential, completion: (@MainActor @Sendable (Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.updatePhoneNumber(credential) }
    }

    public func reload(completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.reload() }
    }

    public func link(
        with credential: AuthCredential, completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.link(with: credential) }
    }

    public func unlink(fromProvider provider: String, completion: (@MainActor @Sendable (User?, Error?) -> Void)? = nil)
    {
        complete(completion) { try await self.unlink(fromProvider: provider) }
    }

    public func reauthenticate(
        with credential: AuthCredential, completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.reauthenticate(with: credential) }
    }

    public func delete(completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.delete() }
    }

    public func updatePassword(to password: String, completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.updatePassword(to: password) }
    }

    public func updateEmail(to email: String, completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.updateEmail(to: email) }
    }
}

extension UserProfileChangeRequest {
    public func commitChanges(completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.commitChanges() }
    }
}
