import Foundation
import HearthCore
import HearthTokens

/// The rules for an end user changing how an account signs in: its e-mail, a password, a second factor (later a
/// passkey). `accounts:update`, `signUp` and `signInWithEmailLink` with an ID token, VERIFY_AND_CHANGE_EMAIL and
/// `mfaEnrollment` start/finalize/withdraw all go through them, so a stolen ID token that has outlived its sign-in
/// cannot take the account over by any of these doors. Admins are not end users and do not come here.
extension AuthEngine {
    /// Whether the ID token's sign-in is recent enough for a sensitive change: its `auth_time` (which refreshes keep)
    /// within the project's `recentSignInSeconds` (Firebase: 5 minutes), else CREDENTIAL_TOO_OLD_LOGIN_AGAIN. The one
    /// place that decides it; deleting the account asks it too.
    func requireRecentSignIn(_ token: VerifiedIDToken, origin: RequestOrigin) throws(AuthError) {
        let age = clock.now().timeIntervalSince(token.authTime)
        if age > Double(origin.project.tokens.recentSignInSeconds) {
            throw AuthError(.credentialTooOldLoginAgain)
        }
    }

    /// A change to how `user` signs in, asked with `token`, needs a recent sign-in, unless it gives an anonymous
    /// account its first credential: such an account has nothing to take over and no other way to sign in again
    /// (Firebase's anonymous upgrade works with a session of any age).
    func authorizeSignInMethodChange(of user: UserRecord, token: VerifiedIDToken, origin: RequestOrigin)
        throws(AuthError)
    {
        if user.isAnonymous { return }
        try requireRecentSignIn(token, origin: origin)
    }

    /// Linking e-mail/password (`signUp`) or another address's e-mail link to an account that already has the
    /// password provider would replace its address or password without `accounts:update`'s checks:
    /// PROVIDER_ALREADY_LINKED, as the official SDKs also decide before asking. The Firebase Auth Emulator replaces
    /// them, and its spec expects it, so `--emulator` does too (still with the recent sign-in, notice and sign-out of
    /// any change): the one place emulator mode is laxer here.
    func requireNoPasswordProvider(_ user: UserRecord, origin: RequestOrigin) throws(AuthError) {
        if !origin.emulator, user.passwordHash != nil || (user.emailLinkSignIn && user.email != nil) {
            throw AuthError(.providerAlreadyLinked)
        }
    }

    /// Gives `user` a new address (verified when its owner just proved it), keeping the first one it had. Returns
    /// the address it replaced when its owner must be told (`finishSignInMethodChange`): a verified one, as
    /// Firebase tells; in emulator mode any, as the Firebase Auth Emulator does.
    func replaceEmail(of user: inout UserRecord, with newEmail: String, verified: Bool, origin: RequestOrigin)
        -> String?
    {
        var replaced: String?
        if let old = user.email, old != newEmail {
            if user.initialEmail == nil { user.initialEmail = old }
            if user.emailVerified || origin.emulator { replaced = old }
        }
        user.email = newEmail
        user.emailVerified = verified
        return replaced
    }

    /// After a saved change of e-mail or password: the replaced address gets its RECOVER_EMAIL link, and every
    /// session the account had ends (the caller starts the one it answers with afterwards).
    func finishSignInMethodChange(_ user: UserRecord, replacedEmail: String?, origin: RequestOrigin) async throws {
        if let replacedEmail, let newEmail = user.email {
            await sendRecoveryNotice(to: replacedEmail, newEmail: newEmail, user: user, origin: origin)
        }
        try await endSessions(of: user.uid, projectID: user.projectID)
    }
}
