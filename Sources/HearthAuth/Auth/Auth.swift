import Foundation
import Synchronization

/// The entry point of the SDK, shaped as FirebaseAuth's `Auth`: one instance per configured app,
/// holding the signed-in user, signing users in and out, and telling listeners.
public final class Auth: Sendable {
    /// The app this `Auth` belongs to; never nil (optional as FirebaseAuth's, whose `app` is weak).
    public var app: HearthApp? { hearthApp }
    let hearthApp: HearthApp

    struct State {
        var currentUser: User?
        var languageCode: String?
        var endpointOverride: URL?
        var tenantID: String?
        var listeners: [UUID: AuthListener] = [:]
        var settings: AuthSettings? = AuthSettings()
        /// Where the current user is kept: the app's store, or the access group's after `useUserAccessGroup`.
        var userStore: any AuthUserStore
        var userAccessGroup: String?
        var shareAuthStateAcrossDevices = false
        var customAuthDomain: String?
        var apns = APNSState()
    }

    let state: Mutex<State>
    private static let instances = Mutex<[String: Auth]>([:])

    init(app: HearthApp) {
        self.hearthApp = app
        state = Mutex(State(tenantID: app.options.tenantID, userStore: app.userStore))
        if let record = loadStoredRecord(from: app.userStore, key: storeKey(nil)) {
            state.withLock { $0.currentUser = User(record: record, auth: self) }
        }
    }

    /// The `Auth` of the default app. `HearthApp.configure(options:)` must have been called.
    public static func auth() -> Auth {
        guard let app = HearthApp.app() else {
            fatalError("HearthAuth: call HearthApp.configure(options:) before Auth.auth().")
        }
        return auth(app: app)
    }

    /// The `Auth` of a given app; the same instance every time for the same app.
    public static func auth(app: HearthApp) -> Auth {
        if let existing = instances.withLock({ $0[app.name] }), existing.hearthApp === app { return existing }
        let created = Auth(app: app)
        return instances.withLock { instances in
            if let existing = instances[app.name], existing.hearthApp === app { return existing }
            instances[app.name] = created
            return created
        }
    }

    static func forget(appName: String) {
        _ = instances.withLock { $0.removeValue(forKey: appName) }
    }

    /// The signed-in user, restored from the user store at start-up; nil when signed out.
    public var currentUser: User? { state.withLock { $0.currentUser } }

    /// The language for SMS texts and e-mails (a BCP 47 code such as `fr` or `ko`), sent as
    /// `X-Firebase-Locale` on every request.
    public var languageCode: String? {
        get { state.withLock { $0.languageCode } }
        set { state.withLock { $0.languageCode = newValue } }
    }

    /// Options that change how requests are made (phone app verification); optional and settable
    /// as in FirebaseAuth, never nil unless the app sets it so.
    public var settings: AuthSettings? {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// A custom domain for the web sign-in handler, as in FirebaseAuth. HearthAuth serves the handler
    /// from the configured endpoint, so this is kept but not used.
    public var customAuthDomain: String? {
        get { state.withLock { $0.customAuthDomain } }
        set { state.withLock { $0.customAuthDomain = newValue } }
    }

    /// Sets `languageCode` to the device's preferred language.
    public func useAppLanguage() {
        languageCode = Locale.preferredLanguages.first
    }

    /// The tenant new sign-ins belong to; defaults to `HearthOptions.tenantID`.
    public var tenantID: String? {
        get { state.withLock { $0.tenantID } }
        set { state.withLock { $0.tenantID = newValue } }
    }

    /// Sends every request to `http://host:port` instead of the configured endpoint, as the Firebase
    /// emulator (or a local `hearth serve`) expects.
    public func useEmulator(withHost host: String, port: Int) {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        state.withLock { $0.endpointOverride = URL(string: "http://\(bracketed):\(port)") }
    }

    var client: IdentityToolkitClient {
        state.withLock {
            IdentityToolkitClient(
                apiKey: hearthApp.options.apiKey, baseURL: $0.endpointOverride ?? hearthApp.options.endpoint,
                languageCode: $0.languageCode, tenantID: $0.tenantID)
        }
    }

    /// Signs the current user out: forgets them here and in the user store. Their tokens stay valid
    /// on the server until they expire or are revoked.
    public func signOut() throws {
        try setCurrentUser(nil)
    }

    /// Makes `user` (signed in with another `Auth` of the same project, say) the current user. Takes an optional,
    /// as FirebaseAuth does (`updateCurrentUser(otherAuth.currentUser)`); nil is `nullUser`, not a sign-out.
    public func updateCurrentUser(_ user: User?) async throws {
        guard let user else { throw AuthErrorCode.nullUser.error() }
        guard user.auth.hearthApp.options.apiKey == hearthApp.options.apiKey else {
            throw AuthErrorCode.invalidUserToken.error(message: "The user was signed in with a different API key.")
        }
        if user.auth !== self { user.moveTo(self) }
        try setCurrentUser(user)
    }

    // MARK: Current user and persistence

    /// The current user's key in the store: per app, or per API key in a shared access group, so an
    /// app and its extensions (each its own bundle) find the same user there, as in FirebaseAuth.
    func storeKey(_ accessGroup: String?) -> String {
        let options = hearthApp.options
        return accessGroup == nil ? "hearth_auth_\(hearthApp.name)_\(options.apiKey)" : "hearth_auth_\(options.apiKey)"
    }

    var userStore: any AuthUserStore { state.withLock { $0.userStore } }

    /// The stored user, or nil. A store that cannot be read or decoded is cleared: the user is
    /// signed out rather than the app crashing on every launch.
    func loadStoredRecord(from store: any AuthUserStore, key: String) -> UserRecord? {
        do {
            guard let data = try store.data(forKey: key) else { return nil }
            return try JSONDecoder().decode(UserRecord.self, from: data)
        } catch {
            try? store.removeData(forKey: key)
            return nil
        }
    }

    /// Replaces the current user, persists the change at once, and tells listeners. The store is
    /// written under the lock, so it always holds the user that is current (never a signed-out one
    /// brought back by a refresh finishing late).
    func setCurrentUser(_ user: User?) throws {
        let previous = try state.withLock { s in
            if let user {
                try s.userStore.setData(try JSONEncoder().encode(user.record), forKey: storeKey(s.userAccessGroup))
            } else {
                try s.userStore.removeData(forKey: storeKey(s.userAccessGroup))
            }
            defer { s.currentUser = user }
            return s.currentUser
        }
        notify(previous: previous.map { ($0.uid, $0.record.tokens.idToken) }, current: user)
    }

    /// Persists the user if it is the current one (a rotated refresh token must never be lost).
    func userDidChange(_ user: User, tokensChanged: Bool) {
        let isCurrent = state.withLock { s in
            guard s.currentUser === user else { return false }
            try? s.userStore.setData(try JSONEncoder().encode(user.record), forKey: storeKey(s.userAccessGroup))
            return true
        }
        if isCurrent, tokensChanged { notify(previous: (user.uid, ""), current: user) }
    }

    /// Signs out after the server said the session is over, if `user` is still the current user.
    func signOutEndedSession(of user: User) {
        let signedOut = state.withLock { s in
            guard s.currentUser === user else { return false }
            try? s.userStore.removeData(forKey: storeKey(s.userAccessGroup))
            s.currentUser = nil
            return true
        }
        if signedOut { notify(previous: (user.uid, user.record.tokens.idToken), current: nil) }
    }
}
