import Foundation
import HearthCore
import HearthStore

/// `accounts:signUp`: a new anonymous or e-mail/password account, or e-mail/password attached to the
/// signed-in account when `idToken` is given (the anonymous-upgrade flow).
public struct SignUpRequest: Sendable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var idToken: String?
    /// `mfaInfo`: second factors the new account starts with. Only the emulator takes them from a client (its
    /// tests create such users directly); production leaves this to admins.
    public var mfaEnrollments: [MFAEnrollment] = []

    public init(
        email: String? = nil, password: String? = nil, displayName: String? = nil, idToken: String? = nil,
        mfaEnrollments: [MFAEnrollment] = []
    ) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.idToken = idToken
        self.mfaEnrollments = mfaEnrollments
    }
}

public struct AccountResult: Sendable {
    public var user: UserRecord
    public var tokens: SessionTokens?
    public var isNewUser: Bool
    /// Set instead of `tokens` when the user has second factors: the sign-in continues at `mfaSignIn`.
    public var challenge: SecondFactorChallenge? = nil
}

extension AuthEngine {
    /// Checks in Firebase's order: MISSING_EMAIL, (an empty e-mail alone: INVALID_EMAIL), MISSING_PASSWORD, INVALID_EMAIL, EMAIL_EXISTS,
    /// WEAK_PASSWORD, then the ID token.
    public func signUp(_ request: SignUpRequest, origin: RequestOrigin) async throws -> AccountResult {
        let project = origin.project
        // Counted before anything is looked up, so an IP over its limit learns nothing (not even EMAIL_EXISTS).
        try await consumeLimit(
            "signup:ip:\(origin.clientIP ?? "-")", limit: project.rateLimits.signUpsPerIPPerHour, windowSeconds: 3600)
        let anonymous = request.email == nil && request.password == nil && request.idToken.nonEmpty == nil
        let secondFactors = origin.emulator ? request.mfaEnrollments : []
        // A tenant decides which kinds of sign-up its users may make themselves.
        if let tenant = project.tenant {
            if anonymous, !tenant.enableAnonymousUser { throw AuthError(.adminOnlyOperation) }
            if !anonymous, !tenant.allowPasswordSignup { throw AuthError(.operationNotAllowed) }
        }
        if anonymous {
            return try await createUser(
                email: nil, password: nil, displayName: nil, secondFactors: secondFactors, origin: origin)
        }
        guard let rawEmail = request.email else { throw AuthError(.missingEmail) }
        // An empty e-mail with nothing else is not an anonymous sign-up in disguise: it is a bad address.
        if rawEmail.isEmpty, request.password.nonEmpty == nil, request.idToken.nonEmpty == nil {
            throw AuthError(.invalidEmail)
        }
        guard let password = request.password.nonEmpty else { throw AuthError(.missingPassword) }
        let email = try EmailAddress.normalize(rawEmail)
        if try await store.user(projectID: project.projectID, email: email) != nil { throw AuthError(.emailExists) }
        try project.passwordPolicy.check(password)

        guard let idToken = request.idToken.nonEmpty else {
            return try await createUser(
                email: email, password: password, displayName: request.displayName.nonEmpty,
                secondFactors: secondFactors, origin: origin)
        }
        return try await retryingOnConflict {
            try await linkPassword(idToken: idToken, email: email, password: password, request: request, origin: origin)
        }
    }

    /// Attaches e-mail/password to the account `idToken` names: the anonymous upgrade, or a password for an account
    /// that signs in another way (which then needs a recent sign-in, and whose address this replaces).
    private func linkPassword(
        idToken: String, email: String, password: String, request: SignUpRequest, origin: RequestOrigin
    ) async throws -> AccountResult {
        let project = origin.project
        var (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        try requireNoPasswordProvider(user, origin: origin)
        try authorizeSignInMethodChange(of: user, token: token, origin: origin)
        let now = clock.now()
        // An account that had an address or a password (an identity provider's, the emulator's replaced one) has
        // changed credentials: its other sessions end, as with accounts:update.
        let changesCredentials = (user.email != nil && user.email != email) || user.passwordHash != nil
        let replaced = replaceEmail(of: &user, with: email, verified: false, origin: origin)
        user.passwordHash = try await hasher.hash(password).encoded
        user.passwordUpdatedAt = now
        if let name = request.displayName.nonEmpty { user.displayName = name }
        user.lastLoginAt = now
        if changesCredentials { user.validSince = nowSecond() }
        try await save(&user)
        if changesCredentials { try await finishSignInMethodChange(user, replacedEmail: replaced, origin: origin) }
        logger.info("password linked", metadata: ["project": "\(project.projectID)", "uid": "\(user.uid)"])
        let tokens = try await startSession(for: user, provider: ProviderID.password, origin: origin)
        return AccountResult(user: user, tokens: tokens, isNewUser: false)
    }

    private func createUser(
        email: String?, password: String?, displayName: String?, secondFactors: [MFAEnrollment], origin: RequestOrigin
    ) async throws -> AccountResult {
        let project = origin.project
        let hash = try await password.asyncMap { try await hasher.hash($0).encoded }
        let now = clock.now()
        var user = UserRecord(
            projectID: project.projectID, uid: random.uid(), email: email, displayName: displayName,
            passwordHash: hash, passwordUpdatedAt: hash == nil ? nil : now, validSince: nowSecond(), createdAt: now,
            lastLoginAt: now)
        user.mfaEnrollments = secondFactors
        let provider = email == nil ? ProviderID.anonymous : ProviderID.password
        try await runBeforeCreate(&user, provider: provider, origin: origin)
        do { try await store.insertUser(user) } catch { throw mapStoreError(error) }
        noteSignUp(user, provider: provider, origin: origin)
        logger.info(
            "account created",
            metadata: ["project": "\(project.projectID)", "uid": "\(user.uid)", "provider": "\(provider)"])
        let tokens = try await startSession(for: user, provider: provider, origin: origin)
        // A beforeSignIn function may have changed the new account: answer with what was stored.
        if project.blockingFunctions.triggers["beforeSignIn"] != nil,
            let stored = try await store.user(projectID: project.projectID, uid: user.uid)
        {
            user = stored
        }
        return AccountResult(user: user, tokens: tokens, isNewUser: true)
    }
}

extension Optional where Wrapped == String {
    /// The string unless it is nil or empty: Firebase treats `""` as absent.
    var nonEmpty: String? {
        guard let self, !self.isEmpty else { return nil }
        return self
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
