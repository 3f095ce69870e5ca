import Foundation
import Synchronization

/// A configured app: options plus the store its signed-in user is kept in. Take the place of
/// `FirebaseApp`; several named apps may talk to different servers or projects at once.
public final class HearthApp: Sendable {
    /// The name `configure(options:)` uses, as FirebaseApp's `__FIRAPP_DEFAULT`.
    public static let defaultName = "__FIRAPP_DEFAULT"

    public let name: String
    public let options: HearthOptions
    /// Where the signed-in user and their tokens are kept between launches.
    public let userStore: any AuthUserStore

    private static let registry = Mutex<[String: HearthApp]>([:])

    init(name: String, options: HearthOptions, userStore: any AuthUserStore) {
        self.name = name
        self.options = options
        self.userStore = userStore
    }

    /// Configures the default app; `Auth.auth()` then talks to its server.
    /// - Parameters:
    ///   - options: the server, API key and project.
    ///   - userStore: where the signed-in user persists; the Keychain on Apple platforms, a file in
    ///     the application-support directory elsewhere.
    @discardableResult
    public static func configure(options: HearthOptions, userStore: (any AuthUserStore)? = nil) -> HearthApp {
        configure(name: defaultName, options: options, userStore: userStore)
    }

    /// Configures a named app. Configuring a name again replaces its app (and its `Auth`).
    @discardableResult
    public static func configure(name: String, options: HearthOptions, userStore: (any AuthUserStore)? = nil)
        -> HearthApp
    {
        let app = HearthApp(name: name, options: options, userStore: userStore ?? DefaultUserStore.make())
        registry.withLock { $0[name] = app }
        Auth.forget(appName: name)
        return app
    }

    /// The default app, or nil before `configure(options:)`.
    public static func app() -> HearthApp? { app(name: defaultName) }

    public static func app(name: String) -> HearthApp? { registry.withLock { $0[name] } }

    public static var allApps: [String: HearthApp] { registry.withLock { $0 } }

    /// Removes the app and its `Auth` instance from memory; the stored user stays in the store, so a
    /// later `configure` with the same name and options signs the same user back in.
    public func delete() {
        Self.registry.withLock { apps in
            if apps[name] === self { apps[name] = nil }
        }
        Auth.forget(appName: name)
    }
}
