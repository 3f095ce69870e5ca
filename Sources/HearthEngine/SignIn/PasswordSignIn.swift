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
        guard let rawEmail = request.email else { throw AuthError(.missingEmail) }
        let email = try EmailAddress.normalize(rawEmail)
        guard let password = request.password.nonEmpty else { throw AuthError(.missingPassword) }
        // No password policy allows more than 4096 characters; refusing longer ones before hashing keeps
        // a megabyte-sized "password" from costing a megabyte-sized hash.
        if password.utf8.count > 4 * 4096 {
            throw AuthError(project.emailEnumerationProtection ? .invalidLoginCredentials : .invalidPassword)
        }

        let limits = project.rateLimits
        let accountKey = "pwfail:acct:\(project.projectID):\(email)"
        let ipKey = "pwfail:ip:\(origin.clientIP ?? "-")"
        let window = limits.failedPasswordWindowSeconds
        let accountLocked = try await isOverLimit(
            accountKey, limit: limits.failedPasswordsPerAccount, windowSeconds: window)
        let ipLocked = try await isOverLimit(ipKey, limit: limits.failedPasswordsPerIP, windowSeconds: window)
        if accountLocked || ipLocked {
            throw AuthError(
                .tooManyAttemptsTryLater,
                "Access to this account has been temporarily disabled due to many failed login attempts. You can immediately restore it by resetting your password or you can try again later."
            )
        }

        let user = try await store.user(projectID: project.projectID, email: email)
        // Without enumeration protection Firebase reports a disabled account before checking the password;
        // with it, that would tell an attacker the address exists, so it waits for a correct password.
        if !project.emailEnumerationProtection, user?.disabled == true { throw AuthError(.userDisabled) }
        let stored = user?.passwordHash.flatMap(PasswordHash.init(encoded:))
        guard try await hasher.verify(password, against: stored), var user, let stored else {
            if limits.failedPasswordsPerAccount > 0 {
                _ = try await store.incrementCounter(accountKey, windowSeconds: window, now: clock.now())
            }
            if limits.failedPasswordsPerIP > 0 {
                _ = try await store.incrementCounter(ipKey, windowSeconds: window, now: clock.now())
            }
            if project.emailEnumerationProtection { throw AuthError(.invalidLoginCredentials) }
            throw AuthError(user?.passwordHash == nil ? .emailNotFound : .invalidPassword)
        }
        if user.disabled { throw AuthError(.userDisabled) }

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
        user.lastLoginAt = now
        try await store.recordSignIn(projectID: user.projectID, uid: user.uid, at: now)
        let done = try await finishFirstFactor(for: user, provider: ProviderID.password, origin: origin)
        return AccountResult(user: user, tokens: done.tokens, isNewUser: false, challenge: done.challenge)
    }
}
