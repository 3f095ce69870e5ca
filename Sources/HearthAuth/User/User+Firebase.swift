// Spellings FirebaseAuth keeps for Objective-C-era code.
extension User {
    /// `isAnonymous`, as a method.
    public func anonymous() -> Bool { isAnonymous }

    /// `isEmailVerified`, as a method.
    public func emailVerified() -> Bool { isEmailVerified }

    /// `getIDToken(forcingRefresh:)` under its Objective-C-era Swift name.
    public func idTokenForcingRefresh(_ forceRefresh: Bool) async throws -> String {
        try await getIDToken(forcingRefresh: forceRefresh)
    }
}

extension AdditionalUserInfo {
    /// `isNewUser`, as a method.
    public func newUser() -> Bool { isNewUser }
}
