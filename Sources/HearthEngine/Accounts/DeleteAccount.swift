import HearthCore

extension AuthEngine {
    /// `accounts:delete` by the signed-in user: needs a recent sign-in; ends every session.
    public func deleteAccount(idToken: String?, origin: RequestOrigin) async throws {
        let (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        try requireRecentSignIn(token, origin: origin)
        _ = try await store.deleteUser(projectID: user.projectID, uid: user.uid)
        logger.info("account deleted", metadata: ["project": "\(user.projectID)", "uid": "\(user.uid)"])
    }
}
