import Synchronization

/// Per-`Auth` switches, as FirebaseAuth's `Auth.auth().settings`.
public final class AuthSettings: Sendable {
    private let appVerificationDisabled = Mutex(false)

    init() {}

    /// Skips the app proof (silent push, reCAPTCHA) when asking for SMS codes. Only the project's
    /// test phone numbers work then, and the server must have app verification `disabled`.
    ///
    /// HearthAuth has no push or reCAPTCHA flow of its own, so this changes nothing in the requests it
    /// sends; it is kept so code written for FirebaseAuth compiles and reads the same.
    public var isAppVerificationDisabledForTesting: Bool {
        get { appVerificationDisabled.withLock { $0 } }
        set { appVerificationDisabled.withLock { $0 = newValue } }
    }
}
