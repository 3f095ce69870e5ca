import HearthCore
import HearthTokens

extension AuthEngine {
    /// `projects/{p}:createSessionCookie`: a session cookie for the session an ID token belongs to, valid for
    /// `validDuration` seconds (five minutes to two weeks; two weeks when absent).
    public func createSessionCookie(idToken: String?, validDuration: Int?, origin: RequestOrigin) async throws
        -> String
    {
        guard idToken.nonEmpty != nil else { throw AuthError(.missingIDToken) }
        let duration = validDuration ?? IDTokenService.sessionCookieLifetimes.upperBound
        guard IDTokenService.sessionCookieLifetimes.contains(duration) else { throw AuthError(.invalidDuration) }
        let (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        logger.info("session cookie created", metadata: ["project": "\(user.projectID)", "uid": "\(user.uid)"])
        return try idTokens.mintSessionCookie(from: token, lifetimeSeconds: duration, now: clock.now())
    }
}
