import Foundation

/// What an e-mail action link does, as FirebaseAuth numbers it.
public enum ActionCodeOperation: Int, Sendable {
    case unknown = 0
    case passwordReset = 1
    case verifyEmail = 2
    case recoverEmail = 3
    case emailLink = 4
    case verifyAndChangeEmail = 5
    case revertSecondFactorAddition = 6

    /// From a link's `mode` (`resetPassword`) or the server's `requestType` (`PASSWORD_RESET`).
    init(mode: String?) {
        switch mode {
        case "resetPassword", "PASSWORD_RESET": self = .passwordReset
        case "verifyEmail", "VERIFY_EMAIL": self = .verifyEmail
        case "recoverEmail", "RECOVER_EMAIL": self = .recoverEmail
        case "signIn", "EMAIL_SIGNIN": self = .emailLink
        case "verifyAndChangeEmail", "VERIFY_AND_CHANGE_EMAIL": self = .verifyAndChangeEmail
        case "revertSecondFactorAddition", "REVERT_SECOND_FACTOR_ADDITION": self = .revertSecondFactorAddition
        default: self = .unknown
        }
    }
}

/// Where an action link leads and which app may open it (FirebaseAuth's `ActionCodeSettings`).
public final class ActionCodeSettings: @unchecked Sendable {
    private let lock = NSLock()
    private var values = Values()

    struct Values {
        var url: URL?
        var handleCodeInApp = false
        var iOSBundleID: String? = Bundle.main.bundleIdentifier
        var androidPackageName: String?
        var androidMinimumVersion: String?
        var androidInstallIfNotAvailable = false
        var linkDomain: String?
    }

    public init() {}

    private func get<T>(_ key: KeyPath<Values, T>) -> T { lock.withLock { values[keyPath: key] } }
    private func set<T>(_ key: WritableKeyPath<Values, T>, _ value: T) { lock.withLock { values[keyPath: key] = value } }

    /// The continue URL: where the user goes after the action (and, for sign-in links, the page the app opens).
    public var url: URL? {
        get { get(\.url) }
        set { set(\.url, newValue) }
    }
    /// The app opens the link itself; required for e-mail link sign-in.
    public var handleCodeInApp: Bool {
        get { get(\.handleCodeInApp) }
        set { set(\.handleCodeInApp, newValue) }
    }
    public var iOSBundleID: String? {
        get { get(\.iOSBundleID) }
        set { set(\.iOSBundleID, newValue) }
    }
    public var androidPackageName: String? {
        get { get(\.androidPackageName) }
        set { set(\.androidPackageName, newValue) }
    }
    public var androidMinimumVersion: String? {
        get { get(\.androidMinimumVersion) }
        set { set(\.androidMinimumVersion, newValue) }
    }
    public var androidInstallIfNotAvailable: Bool {
        get { get(\.androidInstallIfNotAvailable) }
        set { set(\.androidInstallIfNotAvailable, newValue) }
    }
    /// A custom link domain; Hearth accepts only a domain the project authorizes.
    public var linkDomain: String? {
        get { get(\.linkDomain) }
        set { set(\.linkDomain, newValue) }
    }
    @available(*, deprecated, renamed: "linkDomain", message: "Firebase Dynamic Links are shut down; use linkDomain.")
    public var dynamicLinkDomain: String? {
        get { linkDomain }
        set { linkDomain = newValue }
    }

    public func setIOSBundleID(_ bundleID: String) { iOSBundleID = bundleID }

    public func setAndroidPackageName(
        _ androidPackageName: String, installIfNotAvailable: Bool, minimumVersion: String?
    ) {
        lock.withLock {
            values.androidPackageName = androidPackageName
            values.androidInstallIfNotAvailable = installIfNotAvailable
            values.androidMinimumVersion = minimumVersion
        }
    }

    /// The `sendOobCode` fields these settings set.
    var requestFields: [String: JSON] {
        let v = lock.withLock { values }
        var fields: [String: JSON] = ["canHandleCodeInApp": .bool(v.handleCodeInApp)]
        if let url = v.url { fields["continueUrl"] = .string(url.absoluteString) }
        if let id = v.iOSBundleID, !id.isEmpty { fields["iOSBundleId"] = .string(id) }
        if let name = v.androidPackageName {
            fields["androidPackageName"] = .string(name)
            fields["androidInstallApp"] = .bool(v.androidInstallIfNotAvailable)
            if let minimum = v.androidMinimumVersion { fields["androidMinimumVersion"] = .string(minimum) }
        }
        if let domain = v.linkDomain { fields["linkDomain"] = .string(domain) }
        return fields
    }
}

/// What `checkActionCode` learns about a code without using it.
public final class ActionCodeInfo: Sendable {
    public let operation: ActionCodeOperation
    /// The address the code was sent to; for `recoverEmail`, the address the account was changed to.
    public let email: String
    /// For `recoverEmail`: the address the code restores.
    public let previousEmail: String?

    init(operation: ActionCodeOperation, email: String, newEmail: String?) {
        self.operation = operation
        if let newEmail {
            self.email = newEmail
            previousEmail = email
        } else {
            self.email = email
            previousEmail = nil
        }
    }
}

/// The parts of an action link (FirebaseAuth's `ActionCodeURL`).
public final class ActionCodeURL: Sendable {
    public let apiKey: String?
    public let operation: ActionCodeOperation
    public let code: String?
    public let continueURL: URL?
    public let languageCode: String?

    /// Nil when the link has no query at all.
    public init?(link: String) {
        let items = Self.queryItems(link)
        guard !items.isEmpty else { return nil }
        apiKey = items["apiKey"]
        operation = ActionCodeOperation(mode: items["mode"])
        code = items["oobCode"]
        continueURL = items["continueUrl"].flatMap(URL.init(string:))
        languageCode = items["lang"]
    }

    /// The query of a link, or of the action link wrapped in its `link` parameter (a deep link that carries one).
    static func queryItems(_ link: String) -> [String: String] {
        guard let components = URLComponents(string: link) else { return [:] }
        var items: [String: String] = [:]
        for item in components.queryItems ?? [] { items[item.name] = item.value ?? "" }
        if items["oobCode"] == nil, let inner = items["link"] ?? items["deep_link_id"], inner != link {
            let nested = queryItems(inner)
            if !nested.isEmpty { return nested }
        }
        return items
    }
}
