import Foundation
import HearthCore
import HearthStore

/// `accounts:signInWithPassword`.
public struct PasswordSignInRequest: Sendable {
    public var email: String?
    public var password: String?

    public init(email: String?, password: String?) {
        self.email = email
        self.password = password
    }
}

extension AuthEngine {
    /// Signs in with e-mail and password.
    ///
    /// An unknown e-mail costs the same hash as a wrong password, and with enumeration protection
    /// on both answer INVALID_LOGIN_CREDENTIALS. Failures count against the e-mail and the client IP.
    public func signInWithPassword(_ request: PasswordSignInRequest, origin: RequestOrigin) async throws
        -> AccountResult
    {
        let project = origin.project
        if project.tenant?.allowPasswordSignup == false { throw AuthError(.passwordLoginDisabled) }
        guard let rawEmail = request.email else { throw AuthError(.missingEmail) }
        let email = try EmailAddress.normalize(rawEmail)
        guard let password = request.password.nonEmpty else { throw AuthError(.missingPassword) }
        // No stored password is longer (every path that sets one checks the same size), and refusing before
        // hashing keeps a megabyte-sized "password" from costing a megabyte-sized hash.
        if !PasswordPolicy.isHashable(password) {
            throw AuthError(project.emailEnumerationProtection ? .invalidLoginCredentials : .invalidPassword)
        }

        // Reserved before the hash and kept only for a wrong password, so N parallel guesses against a
        // limit of L check at most L passwords.
        let limits = project.rateLimits
        let reservation = try await reserveAttempts(
            [
                ("pwfail:acct:\(project.projectID):\(email)", limits.failedPasswordsPerAccount),
                ("pwfail:ip:\(origin.clientIP ?? "-")", limits.failedPasswordsPerIP),
            ], windowSeconds: limits.failedPasswordWindowSeconds)

        let user = try await store.user(projectID: project.projectID, email: email)
        // Without enumeration protection Firebase reports a disabled account before checking the password;
        // with it, that would tell an attacker the address exists, so it waits for a correct password.
        if !project.emailEnumerationProtection, let user, user.disabled {
            throw refusedSignIn(user.uid, provider: ProviderID.password, .userDisabled, origin: origin)
        }
        let stored = user?.passwordHash.flatMap(PasswordHash.init(encoded:))
        guard try await hasher.verify(password, against: stored), var user, let stored else {
            AuthMetrics.signInFailed(provider: ProviderID.password)
            let failure = AuthError(
                project.emailEnumerationProtection
                    ? .invalidLoginCredentials : user?.passwordHash == nil ? .emailNotFound : .invalidPassword)
            if let user {
                recordActivity(ActivityAction.signInFailed, uid: user.uid, provider: ProviderID.password, origin: origin, failure: failure)
            }
            throw failure
        }
        try await release(reservation)
        if user.disabled {
            let failure = AuthError(.userDisabled)
            recordActivity(ActivityAction.signInFailed, uid: user.uid, provider: ProviderID.password, origin: origin, failure: failure)
            throw failure
        }

        let now = clock.now()
        if stored.needsUpgrade(to: hasher.parameters) {
            user.passwordHash = try await hasher.hash(password).encoded
            // Based on the version just read: if the account changed meanwhile, skip; the next sign-in upgrades.
            do {
                try await store.updateUser(user)
                user.version += 1
                logger.info("password hash upgraded", metadata: ["uid": "\(user.uid)"])
            } catch StoreError.versionConflict {}
        }
        if !needsSecondFactor(user, origin: origin) {
            user.lastLoginAt = now
            try await recordSignIn(projectID: user.projectID, uid: user.uid, at: now)
        }
        let done = try await finishFirstFactor(for: user, provider: ProviderID.password, origin: origin)
        return AccountResult(user: user, tokens: done.tokens, isNewUser: false, challenge: done.challenge)
    }
}
