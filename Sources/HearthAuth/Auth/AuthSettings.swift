import Synchronization

/// Per-`Auth` switches, as FirebaseAuth's `Auth.auth().settings`.
public final class AuthSettings: Sendable {
    private let appVerificationDisabled = Mutex(false)

    public init() {}

    /// Skips the app proof (APNs silent push, reCAPTCHA) when asking for SMS codes. Only the
    /// project's test phone numbers work then, as in Firebase.
    public var appVerificationDisabledForTesting: Bool {
        get { appVerificationDisabled.withLock { $0 } }
        set { appVerificationDisabled.withLock { $0 = newValue } }
    }

    /// The Swift spelling FirebaseAuth's documentation uses for `appVerificationDisabledForTesting`.
    public var isAppVerificationDisabledForTesting: Bool {
        get { appVerificationDisabledForTesting }
        set { appVerificationDisabledForTesting = newValue }
    }
}
