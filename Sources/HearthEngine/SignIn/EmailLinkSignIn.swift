import Foundation
import HearthCore
import HearthStore

/// `accounts:signInWithEmailLink` (v3 `emailLinkSignin`): the code of an EMAIL_SIGNIN link plus the address it
/// was sent to.
public struct EmailLinkSignInRequest: Sendable {
    public var email: String?
    public var oobCode: String?
    /// Set when a signed-in user links the address to their account.
    public var idToken: String?

    public init(email: String?, oobCode: String?, idToken: String? = nil) {
        self.email = email
        self.oobCode = oobCode
        self.idToken = idToken
    }
}

extension AuthEngine {
    /// Signs in the account with that address, creates one, or (with an ID token) gives the signed-in account the
    /// address; either way the address is verified, since its owner opened the link. The code is used once.
    /// Linking another address is a change of e-mail (`SignInMethodChanges`): a recent sign-in unless the account is
    /// anonymous, never over an existing password provider, the replaced verified address told, other sessions ended.
    public func signInWithEmailLink(_ r: EmailLinkSignInRequest, origin: RequestOrigin) async throws -> AccountResult {
        let project = origin.project
        if project.tenant?.enableEmailLinkSignin == false { throw AuthError(.operationNotAllowed) }
        let linking = r.idToken.nonEmpty != nil ? try await authenticatedUser(idToken: r.idToken, origin: origin) : nil
        guard let raw = r.email.nonEmpty else { throw AuthError(.missingEmail) }
        let email = try EmailAddress.normalize(raw)
        guard let code = r.oobCode.nonEmpty else { throw AuthError(.missingOobCode) }
        let hash = Self.actionCodeHash(code)
        guard let peeked = try await store.emailActionCode(hash: hash, projectID: project.projectID, now: clock.now()),
            peeked.kind == .emailSignIn
        else {
            // A used, expired or mistyped link for an existing account goes into that account's History.
            guard let owner = try await store.user(projectID: project.projectID, email: email) else {
                throw AuthError(.invalidOobCode)
            }
            throw refusedSignIn(owner.uid, provider: ProviderID.emailLink, .invalidOobCode, origin: origin)
        }
        guard peeked.email == email else {
            throw AuthError(.invalidEmail, "The email provided does not match the sign-in email address.")
        }
        let owner = try await store.user(projectID: project.projectID, email: email)
        // Checked before the code is used, so a refused link still works for a fresh sign-in.
        if case let (user, token)? = linking {
            if let owner, user.uid != owner.uid { throw AuthError(.emailExists) }
            // A link for the address the account already has only proves it again.
            if user.email != email {
                try requireNoPasswordProvider(user, origin: origin)
                try authorizeSignInMethodChange(of: user, token: token, origin: origin)
            }
        }
        guard try await store.consumeEmailActionCode(hash: hash, projectID: project.projectID, now: clock.now()) != nil
        else {
            guard let owner else { throw AuthError(.invalidOobCode) }
            throw refusedSignIn(owner.uid, provider: ProviderID.emailLink, .invalidOobCode, origin: origin)
        }

        guard let existing = linking?.0 ?? owner else {
            try await consumeLimit(
                "signup:ip:\(origin.clientIP ?? "-")", limit: project.rateLimits.signUpsPerIPPerHour,
                windowSeconds: 3600)
            let now = clock.now()
            var user = UserRecord(
                projectID: project.projectID, uid: random.uid(), email: email, emailVerified: true,
                validSince: nowSecond(), createdAt: now, lastLoginAt: now)
            user.emailLinkSignIn = true
            try await runBeforeCreate(&user, provider: ProviderID.emailLink, origin: origin)
            do { try await store.insertUser(user) } catch { throw mapStoreError(error) }
            noteSignUp(user, provider: ProviderID.emailLink, origin: origin)
            logger.info(
                "account created", metadata: ["project": "\(project.projectID)", "uid": "\(user.uid)", "provider": "emailLink"])
            let tokens = try await startSession(
                for: user, provider: ProviderID.password, origin: origin, signInMethod: ProviderID.emailLink)
            return AccountResult(user: user, tokens: tokens, isNewUser: true)
        }
        if existing.disabled {
            throw refusedSignIn(existing.uid, provider: ProviderID.emailLink, .userDisabled, origin: origin)
        }
        let user = try await retryingOnConflict {
            guard var user = try await store.user(projectID: project.projectID, uid: existing.uid) else {
                throw AuthError(.userNotFound)
            }
            let changesEmail = user.email != nil && user.email != email
            let replaced = replaceEmail(of: &user, with: email, verified: true, origin: origin)
            user.emailLinkSignIn = true
            user.lastLoginAt = clock.now()
            if changesEmail { user.validSince = nowSecond() }
            try await save(&user)
            if changesEmail { try await finishSignInMethodChange(user, replacedEmail: replaced, origin: origin) }
            return user
        }
        // An existing account may have second factors: the link is a first factor like a password.
        let done = try await finishFirstFactor(
            for: user, provider: ProviderID.password, origin: origin, signInMethod: ProviderID.emailLink)
        return AccountResult(user: user, tokens: done.tokens, isNewUser: false, challenge: done.challenge)
    }
}
