import HearthCore

extension AuthEngine {
    /// `accounts:lookup` for the signed-in user.
    public func lookup(idToken: String?, origin: RequestOrigin) async throws -> UserRecord {
        try await authenticatedUser(idToken: idToken, origin: origin).0
    }
}
