import Foundation
import HearthCore
import HearthMessaging
import HearthProviders
import HearthStore
import HearthTokens
import Logging

/// Who is asking: the project the request resolved to and where it came from.
public struct RequestOrigin: Sendable {
    public var project: ProjectConfig
    public var clientIP: String?
    /// The client's language (`X-Firebase-Locale`, what `Auth.languageCode` sets), for SMS and e-mail text.
    public var locale: String?
    /// Authenticated with admin credentials (a service account's access token, or the emulator's `owner`).
    public var isAdmin: Bool
    /// Served by `hearth serve --emulator`: provider tokens are accepted unsigned, as the Firebase Auth Emulator does.
    public var emulator: Bool
    /// The client's `User-Agent`, which blocking functions are told (`user_agent`).
    public var userAgent: String?
    /// In emulator mode, where the request's e-mail links point (the emulator's own `/emulator/action`).
    public var emulatorLinks: EmulatorLinks?

    public init(
        project: ProjectConfig, clientIP: String?, locale: String? = nil, isAdmin: Bool = false, emulator: Bool = false,
        userAgent: String? = nil
    ) {
        self.project = project
        self.clientIP = clientIP
        self.locale = locale
        self.isAdmin = isAdmin
        self.emulator = emulator
        self.userAgent = userAgent
    }
}

/// The Firebase Auth Emulator's e-mail links: they open `/emulator/action` on the host the request reached and carry
/// the request's API key, which the JS SDK's `isSignInWithEmailLink` requires (`fake-api-key` when the request had
/// none, as the emulator writes), and the project when the key alone would not name it.
public struct EmulatorLinks: Sendable {
    /// `http://<host the request reached>`.
    public var baseURL: String
    public var apiKey: String
    public var namesProject: Bool

    public init(baseURL: String, apiKey: String?, namesProject: Bool) {
        self.baseURL = baseURL
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 } ?? "fake-api-key"
        self.namesProject = namesProject
    }
}

/// What a successful sign-in hands back to the client.
public struct SessionTokens: Sendable, Equatable {
    public var idToken: String
    public var refreshToken: String
    public var expiresIn: Int
}

/// The use cases of Hearth. Typed requests in, typed results or `AuthError` out;
/// nothing here knows about HTTP.
public final class AuthEngine: Sendable {
    /// Internal: callers go through the use cases, which keep the rules, never to the store around them.
    let store: any AuthStore
    public let projects: ProjectRegistry
    public let idTokens: IDTokenService
    public let hasher: PasswordHasher
    /// Internal like the store: time and randomness reach callers only through what the use cases answer.
    let clock: AuthClock
    let random: SecureRandom
    /// Where verification codes go; the development outbox unless a provider is configured.
    public let smsSender: SMSSender
    /// Where action-link e-mail goes: SMTP, a webhook, the development outbox, or nowhere (refused).
    public let emailSender: EmailSender
    /// Makes a link request for an unknown address take as long as one that sends mail.
    let emailPacing = EmailPacing()
    /// Checks reCAPTCHA tokens for projects that require them.
    public let recaptcha: RecaptchaVerifier?
    /// Sends phone app verification's silent push (APNs) for `verifyClient`; nil when not configured.
    public let silentPush: SilentPushSender?
    /// The `suggestedTimeout` `verifyClient` answers with.
    let silentPushTimeoutSeconds: Int
    /// Verifies Apple, Google, Facebook and OIDC credentials; holds the shared remote-JWKS cache.
    public let identityProviders: IdentityProviders
    /// Calls the project's blocking functions (`beforeCreate`, `beforeSignIn`).
    public let blockingFunctions: BlockingFunctionClient
    /// Users read for ID-token requests, current while the store's change stamp is unchanged.
    let users = UserCache()
    /// Who owns each passkey credential this process has seen, so a passkey sign-in finds its user in `users`.
    let passkeyOwners = BoundedTable<PasskeyOwner, String>(capacity: 4096)
    /// End users' sign-ins and sign-ups, stored in batches off the request path.
    let activity: ActivityLog
    let logger: Logger

    public init(
        store: AuthStore, projects: ProjectRegistry, idTokens: IDTokenService, hasher: PasswordHasher,
        clock: AuthClock = .system, random: SecureRandom = .system, smsSender: SMSSender? = nil,
        emailSender: EmailSender? = nil, recaptcha: RecaptchaVerifier? = nil, silentPush: SilentPushSender? = nil,
        silentPushTimeoutSeconds: Int = 5, identityProviders: IdentityProviders? = nil,
        blockingFunctions: BlockingFunctionClient = .init(), logger: Logger = Logger(label: "hearth.engine")
    ) {
        self.store = store
        self.projects = projects
        self.idTokens = idTokens
        self.hasher = hasher
        self.clock = clock
        self.random = random
        self.smsSender = smsSender ?? OutboxSMSSender(store: store, logger: logger)
        // The development outbox only in emulator mode; elsewhere no sender means no mail, never stored links.
        self.emailSender =
            emailSender ?? (idTokens.unsigned ? OutboxEmailSender(store: store, logger: logger) : UnconfiguredEmailSender())
        self.recaptcha = recaptcha
        self.silentPush = silentPush
        self.silentPushTimeoutSeconds = silentPushTimeoutSeconds
        self.identityProviders = identityProviders ?? IdentityProviders(clock: clock)
        self.blockingFunctions = blockingFunctions
        self.logger = logger
        self.activity = ActivityLog(store: store, logger: logger)
    }

    /// Emulator mode (`hearth serve --emulator`): unsigned tokens, as the Firebase Auth Emulator issues and accepts.
    public var isEmulator: Bool { idTokens.unsigned }

    /// A fresh random token of `bytes` bytes, base64url: the pages' CSRF tokens and nonces.
    public func randomToken(bytes: Int) -> String { random.token(bytes: bytes) }

    /// Second factors an admin request sets on a user, each with a new id and enrolled now.
    public func adminEnrollments(_ entries: [[String: JSONValue]]) throws(AuthError) -> [MFAEnrollment] {
        try MFAEnrollment.adminList(entries, newID: { random.uid() }, now: clock.now())
    }

    /// `validSince` and JWT times have whole-second precision.
    func nowSecond() -> Date { Date(timeIntervalSince1970: Double(clock.now().secondsSince1970)) }

    /// Ends every refresh-token family `uid` has now. Moving `validSince` alone is not enough: it has whole
    /// seconds, so a session started in the same second as a password change would outlive it.
    func endSessions(of uid: String, projectID: String) async throws {
        try await store.revokeRefreshFamilies(projectID: projectID, uid: uid, reason: .revoked, at: clock.now())
    }

    // MARK: Sessions

    /// Starts a refresh-token family for `user` and mints its first ID token. `extraClaims` (a custom token's
    /// claims) go into every ID token of the session, `secondFactor` (a multi-factor sign-in or enrollment) too.
    /// A sign-in (`signIn`, unlike a session renewed after a credential change) runs the project's `beforeSignIn`
    /// function first, whose session claims join the extra claims; it is told `signInMethod` when that differs from
    /// the token's provider (an e-mail link signs in as `password` but is the `emailLink` method).
    func startSession(
        for user: UserRecord, provider: String, origin: RequestOrigin, extraClaims: String? = nil,
        secondFactor: SecondFactorClaim? = nil, signIn: Bool = true, signInMethod: String? = nil
    ) async throws -> SessionTokens {
        let session = try await prepareSession(
            for: user, provider: provider, origin: origin, extraClaims: extraClaims, secondFactor: secondFactor,
            signIn: signIn, signInMethod: signInMethod)
        try await store.insertRefreshFamily(session.family, tokenHash: session.refreshTokenHash)
        return try finishSession(session, origin: origin)
    }

    /// `startSession` up to its write: the sign-in's checks and `beforeSignIn`, and the family to store. A caller
    /// that stores it with other writes (a passkey sign-in) then calls `finishSession`.
    func prepareSession(
        for user: UserRecord, provider: String, origin: RequestOrigin, extraClaims: String? = nil,
        secondFactor: SecondFactorClaim? = nil, signIn: Bool = true, signInMethod: String? = nil
    ) async throws -> PendingSession {
        var user = user
        var extraClaims = extraClaims
        if signIn {
            // A beforeCreate function may have disabled the account it let be created.
            if user.disabled {
                let failure = AuthError(.userDisabled)
                recordActivity(ActivityAction.signInFailed, uid: user.uid, provider: provider, origin: origin, failure: failure)
                throw failure
            }
            let (updated, sessionClaims) = try await runBeforeSignIn(
                user, provider: signInMethod ?? provider, origin: origin)
            user = updated
            extraClaims = CustomClaims.merged(extraClaims, sessionClaims)
        }
        let now = clock.now()
        let family = RefreshTokenFamily(
            id: random.timeOrderedID(randomBytes: 12), projectID: user.projectID, uid: user.uid, authTime: now,
            signInProvider: provider, createdAt: now, extraClaims: extraClaims, secondFactor: secondFactor,
            ipPrefix: SessionClient.prefix(of: origin.clientIP), userAgent: SessionClient.userAgent(origin.userAgent))
        let firstToken = RefreshTokenKey(familyID: family.id, generation: 0)
        return PendingSession(
            user: user, family: family, refreshToken: RefreshTokenCodec.generate(random: random, key: firstToken),
            signIn: signIn)
    }

    /// A stored session's sign-in counted and recorded, and its first ID token. A SAML sign-in's attribute
    /// statements are in that token only (`firebase.sign_in_attributes`), as the Auth Emulator issues them: the
    /// session does not keep them, so a refreshed token has none.
    func finishSession(_ session: PendingSession, origin: RequestOrigin) throws -> SessionTokens {
        let family = session.family
        if session.signIn {
            AuthMetrics.signIn(provider: family.signInProvider)
            recordActivity(
                ActivityAction.signIn, uid: family.uid, provider: family.signInProvider, origin: origin, failure: nil)
        }
        let lifetime = origin.project.tokens.idTokenLifetimeSeconds
        let idToken = try idTokens.mint(
            user: session.user, signInProvider: family.signInProvider, authTime: family.authTime,
            lifetimeSeconds: lifetime, now: family.createdAt, extraClaims: family.extraClaims,
            secondFactor: family.secondFactor, signInAttributes: Self.federatedSignIn?.signInAttributes)
        return SessionTokens(idToken: idToken, refreshToken: session.refreshToken, expiresIn: lifetime)
    }

    /// The signed-in user an ID token names, with Firebase's checks: a valid token, an existing
    /// enabled user, and a session that began no earlier than the user's `validSince`.
    func authenticatedUser(idToken: String?, origin: RequestOrigin) async throws -> (UserRecord, VerifiedIDToken) {
        guard let idToken, !idToken.isEmpty else { throw AuthError(.missingIDToken) }
        let token = try await idTokens.verify(idToken, projectID: origin.project.projectID, now: clock.now())
        guard let user = try await users.user(projectID: origin.project.projectID, uid: token.uid, store: store) else {
            throw AuthError(.userNotFound)
        }
        if user.disabled { throw AuthError(.userDisabled) }
        if token.authTime.secondsSince1970 < user.validSince.secondsSince1970 { throw AuthError(.tokenExpired) }
        return (user, token)
    }

    /// Maps store conflicts to Firebase codes.
    func mapStoreError(_ error: Error) -> Error {
        switch error as? StoreError {
        case .emailExists?: AuthError(.emailExists)
        case .phoneNumberExists?: AuthError(.phoneNumberExists)
        case .uidExists?: AuthError(.duplicateLocalID)
        case .userNotFound?: AuthError(.userNotFound)
        case .versionConflict?: AuthError(.tooManyAttemptsTryLater, "The account was changed concurrently; try again.")
        case .federatedIDExists?: AuthError(.federatedUserIDAlreadyLinked)
        case .passkeyExists?: AuthError(.passkeyExists)
        case nil: error
        }
    }

    /// Stores an updated user. A version conflict propagates unchanged for `retryingOnConflict`;
    /// other store conflicts become Firebase errors.
    func save(_ user: inout UserRecord) async throws {
        do {
            try await store.updateUser(user)
        } catch StoreError.versionConflict {
            throw StoreError.versionConflict
        } catch {
            throw mapStoreError(error)
        }
        user.version += 1
    }

    /// Runs a read-modify-write use case again when another request updated the same user in between.
    func retryingOnConflict<T>(_ body: () async throws -> T) async throws -> T {
        for _ in 0..<3 {
            do { return try await body() } catch StoreError.versionConflict { continue }
        }
        do { return try await body() } catch { throw mapStoreError(error) }
    }

    // MARK: Abuse limits

    /// Counts one event against `key` and fails once more than `limit` happened in the window. 0 disables.
    /// Emulator mode has no limits at all, as the Firebase Auth Emulator has none.
    func consumeLimit(_ key: String, limit: Int, windowSeconds: Int) async throws {
        guard limit > 0, !isEmulator else { return }
        let count = try await store.incrementCounter(key, windowSeconds: windowSeconds, now: clock.now())
        if count > limit {
            AuthMetrics.limitRefusal(key: key)
            // The key's kind only: keys carry e-mail addresses and IPs, which logs keep out.
            logger.notice("rate limit reached", metadata: ["limit": "\(key.prefix { $0 != ":" })", "count": "\(count)"])
            throw AuthError(.tooManyAttemptsTryLater)
        }
    }

    /// Reserves one attempt under each `(key, limit)` before the work it guards (a password hash) starts, so that
    /// limits hold under parallel requests: the store's increment is atomic, and a request that finds a counter
    /// already at its limit takes its reservations back and is refused. A limit of 0 disables that key.
    /// The caller settles the returned reservation: `release` it when the attempt turned out not to count.
    func reserveAttempts(_ limits: [(key: String, limit: Int)], windowSeconds: Int) async throws -> AttemptReservation {
        let now = clock.now()
        var reserved: [String] = []
        for (key, limit) in limits where limit > 0 && !isEmulator {
            let count = try await store.incrementCounter(key, windowSeconds: windowSeconds, now: now)
            reserved.append(key)
            if count > limit {
                for key in reserved { try await store.decrementCounter(key, windowSeconds: windowSeconds, now: now) }
                AuthMetrics.limitRefusal(key: key)
                logger.notice("attempt limit reached", metadata: ["limit": "\(key.prefix { $0 != ":" })"])
                throw AuthError(
                    .tooManyAttemptsTryLater,
                    "Access to this account has been temporarily disabled due to many failed login attempts. You can immediately restore it by resetting your password or you can try again later."
                )
            }
        }
        return AttemptReservation(keys: reserved, windowSeconds: windowSeconds, reservedAt: now)
    }

    func release(_ reservation: AttemptReservation) async throws {
        for key in reservation.keys {
            try await store.decrementCounter(key, windowSeconds: reservation.windowSeconds, now: reservation.reservedAt)
        }
    }
}

/// A session `prepareSession` let through, not stored yet.
struct PendingSession: Sendable {
    var user: UserRecord
    var family: RefreshTokenFamily
    var refreshToken: String
    var signIn: Bool

    /// What the store keeps of the session's first refresh token.
    var refreshTokenHash: [UInt8] { RefreshTokenCodec.hash(refreshToken) }
}

/// Attempts counted ahead of time by `reserveAttempts`.
struct AttemptReservation: Sendable {
    var keys: [String]
    var windowSeconds: Int
    var reservedAt: Date
}
