import Foundation
import Synchronization

/// A signed-in user: the account's profile, its tokens, and what can be done with them.
///
/// The ID token is cached and refreshed five minutes before it expires; concurrent callers share
/// one refresh, and the rotated refresh token is persisted before anyone sees the new ID token.
public final class User: UserInfo, Hashable, Sendable {
    /// Tokens this close to expiry are refreshed before use.
    static let refreshMargin: TimeInterval = 5 * 60

    struct State {
        var record: UserRecord
        var auth: Auth
        var refresh: Task<TokenSet, Error>?
        /// Refresh requests sent, for tests that check concurrent callers share one.
        var refreshRequests = 0
        /// The name given to `passkeyCreationOptions(withName:)`, sent by the enrolment's finalize.
        var passkeyName: String?
    }

    let state: Mutex<State>

    init(record: UserRecord, auth: Auth) {
        state = Mutex(State(record: record, auth: auth))
    }

    var record: UserRecord { state.withLock { $0.record } }
    var auth: Auth { state.withLock { $0.auth } }
    var refreshRequests: Int { state.withLock { $0.refreshRequests } }

    func moveTo(_ auth: Auth) { state.withLock { $0.auth = auth } }

    /// The same object, as FirebaseAuth's NSObject-based `User` compares (`Auth.auth().currentUser == user`).
    public static func == (lhs: User, rhs: User) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: Profile

    /// Always `firebase`, as FirebaseAuth reports it for the user itself.
    public var providerID: String { "firebase" }
    public var uid: String { record.uid }
    public var email: String? { record.email }
    public var displayName: String? { record.displayName }
    public var photoURL: URL? { record.photoURL }
    public var phoneNumber: String? { record.phoneNumber }
    public var isEmailVerified: Bool { record.emailVerified }
    /// True until the account gets an e-mail, a phone number or a provider.
    public var isAnonymous: Bool { record.isAnonymous }
    /// One entry per linked sign-in method.
    public var providerData: [any UserInfo] { record.providers }
    public var metadata: UserMetadata { record.metadata }
    public var tenantID: String? { record.tenantID }
    /// The current refresh token (it changes on every refresh when the server rotates them).
    public var refreshToken: String? { record.tokens.refreshToken }

    // MARK: Tokens

    /// The ID token to send to your backend; cached until five minutes before it expires.
    public func getIDToken() async throws -> String { try await tokens(forcingRefresh: false).idToken }

    public func getIDToken(forcingRefresh forceRefresh: Bool) async throws -> String {
        try await tokens(forcingRefresh: forceRefresh).idToken
    }

    /// The ID token with its decoded claims and dates.
    public func getIDTokenResult(forcingRefresh forceRefresh: Bool = false) async throws -> AuthTokenResult {
        let token = try await tokens(forcingRefresh: forceRefresh).idToken
        guard let result = AuthTokenResult(token: token) else { throw AuthErrorCode.malformedJWT.error() }
        return result
    }

    func tokens(forcingRefresh force: Bool) async throws -> TokenSet {
        enum Next {
            case cached(TokenSet)
            case wait(Task<TokenSet, Error>)
        }
        let next: Next = state.withLock { s in
            if let running = s.refresh { return .wait(running) }
            if !force, s.record.tokens.expirationDate.timeIntervalSinceNow > Self.refreshMargin {
                return .cached(s.record.tokens)
            }
            s.refreshRequests += 1
            let task = Task { try await self.refreshTokens(force: force) }
            s.refresh = task
            return .wait(task)
        }
        switch next {
        case .cached(let tokens): return tokens
        case .wait(let task): return try await task.value
        }
    }

    private func refreshTokens(force: Bool) async throws -> TokenSet {
        defer { state.withLock { $0.refresh = nil } }
        let (auth, uid, current) = state.withLock { ($0.auth, $0.record.uid, $0.record.tokens) }
        // Another process of the access group (an app extension) may have rotated the refresh token since we
        // read it: continue from what it stored, as refreshing with the old one would look like a replay and
        // end the session for both.
        if let stored = auth.sharedStoredTokens(uid: uid), stored.refreshToken != current.refreshToken {
            apply(stored)
            if !force, stored.expirationDate.timeIntervalSinceNow > Self.refreshMargin { return stored }
        }
        let refreshToken = state.withLock { $0.record.tokens.refreshToken }
        do {
            let r = try await auth.client.call(
                .token, ["grantType": "refresh_token", "refreshToken": .string(refreshToken)])
            guard let tokens = TokenSet(secureToken: r) else {
                throw AuthErrorCode.internalError.error(message: "The token answer has no tokens.")
            }
            apply(tokens)
            return tokens
        } catch {
            endSessionIfOver(error)
            throw error
        }
    }

    /// Stores new tokens and persists them at once: a rotated refresh token is the only way back in.
    func apply(_ tokens: TokenSet) {
        let changed = state.withLock { s in
            defer { s.record.tokens = tokens }
            return s.record.tokens.idToken != tokens.idToken
        }
        auth.userDidChange(self, tokensChanged: changed)
    }

    func update(_ change: (inout UserRecord) -> Void) {
        state.withLock { change(&$0.record) }
        auth.userDidChange(self, tokensChanged: false)
    }

    /// The server codes that mean this session is over; anything else (a network error, a server
    /// hiccup) leaves the user signed in.
    static let sessionEndingCodes: Set<String> = [
        "USER_DISABLED", "USER_NOT_FOUND", "TOKEN_EXPIRED", "INVALID_REFRESH_TOKEN",
    ]

    func endSessionIfOver(_ error: Error) {
        let code = (error as NSError).userInfo[AuthErrorUserInfoServerCodeKey] as? String
        if let code, Self.sessionEndingCodes.contains(code) { auth.signOutEndedSession(of: self) }
    }

    /// A call made with this user's fresh ID token; signs the user out if the server says the
    /// session is over.
    func authorizedCall(_ endpoint: IdentityToolkitClient.Endpoint, _ body: (String) -> [String: JSON])
        async throws -> JSON
    {
        let idToken = try await getIDToken()
        do {
            return try await auth.client.call(endpoint, body(idToken))
        } catch {
            endSessionIfOver(error)
            throw error
        }
    }

    // MARK: Account

    /// Reads the account from the server again (after another device changed it, say).
    public func reload() async throws {
        let r = try await authorizedCall(.v1("accounts:lookup")) { ["idToken": .string($0)] }
        guard let account = r["users"]?.array?.first else {
            auth.signOutEndedSession(of: self)
            throw AuthErrorCode.userNotFound.error()
        }
        update { $0.update(lookup: account) }
    }

    /// Deletes the account on the server and signs it out. Needs a recent sign-in.
    public func delete() async throws {
        _ = try await authorizedCall(.v1("accounts:delete")) { ["idToken": .string($0)] }
        auth.signOutEndedSession(of: self)
    }

    /// Sets a new password. Needs a recent sign-in (`requiresRecentLogin` otherwise).
    public func updatePassword(to password: String) async throws {
        try await updateAccount(["password": .string(password)])
    }

    /// Changes the e-mail address directly. Needs a recent sign-in.
    public func updateEmail(to email: String) async throws {
        try await updateAccount(["email": .string(email)])
    }

    /// A change to the display name and photo URL, sent by `commitChanges()`.
    public func createProfileChangeRequest() -> UserProfileChangeRequest {
        UserProfileChangeRequest(user: self)
    }

    /// `accounts:update` with this user's token; takes the new tokens and the account it answers.
    func updateAccount(_ fields: [String: JSON]) async throws {
        let r = try await authorizedCall(.v1("accounts:update")) { idToken in
            fields.merging(["idToken": .string(idToken), "returnSecureToken": true]) { $1 }
        }
        if let tokens = TokenSet(identityToolkit: r) { apply(tokens) }
        try await reload()
    }

    /// Key-value-coding compatibility for code written against FirebaseAuth's `NSObject` user
    /// (`user.setValue(name, forKey: "displayName")`): changes this object only, not the server;
    /// use `createProfileChangeRequest()` to save a change.
    public func setValue(_ value: Any?, forKey key: String) {
        update { record in
            switch key {
            case "displayName": record.displayName = value as? String
            case "photoURL": record.photoURL = value as? URL ?? (value as? String).flatMap(URL.init(string:))
            case "email": record.email = value as? String
            case "phoneNumber": record.phoneNumber = value as? String
            default: break
            }
        }
    }
}
