import Foundation

/// The kind of APNs token `setAPNSToken(_:type:)` is given: which APNs environment the server
/// must push to.
public enum AuthAPNSTokenType: Int, Sendable {
    /// Decided from the build (a debug build uses the sandbox).
    case unknown
    case sandbox
    case prod
}

/// The APNs token and the silent-push verifications under way.
struct APNSState: Sendable {
    var token: Data?
    var type: AuthAPNSTokenType = .unknown
    /// Receipts from `accounts:verifyClient` whose silent push has not arrived yet.
    var waiting: [String: CheckedContinuation<String, Error>] = [:]
    /// Secrets that arrived before their receipt was waited on.
    var early: [String: String] = [:]
}

/// Phone sign-in's app verification by silent push, as FirebaseAuth does it on iOS: the device's APNs
/// token goes to `accounts:verifyClient`, the server answers with a receipt and pushes a secret to the
/// device, and the code request carries both (`iosReceipt`, `iosSecret`), proving the request comes
/// from the app on a real device.
extension Auth {
    /// The APNs token given by the app (`setAPNSToken(_:type:)`); setting it sets the type `unknown`.
    public var apnsToken: Data? {
        get { state.withLock { $0.apns.token } }
        set {
            state.withLock {
                $0.apns.token = newValue; $0.apns.type = .unknown
            }
        }
    }

    /// Passes the app's APNs device token, from
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`.
    public func setAPNSToken(_ token: Data, type: AuthAPNSTokenType) {
        state.withLock {
            $0.apns.token = token; $0.apns.type = type
        }
    }

    /// Hands a remote notification to Auth; true when it is the server's verification push (the app
    /// should then not process it further). Call it from
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public func canHandleNotification(_ userInfo: [AnyHashable: Any]) -> Bool {
        var payload = userInfo["com.google.firebase.auth"]
        if let text = payload as? String {
            payload = try? JSONSerialization.jsonObject(with: Data(text.utf8))
        }
        guard let fields = payload as? [String: Any], let receipt = fields["receipt"] as? String else { return false }
        guard let secret = fields["secret"] as? String else { return true }  // a probe push: ours, nothing to do
        let waiter = state.withLock { s in
            if let waiter = s.apns.waiting.removeValue(forKey: receipt) { return Optional(waiter) }
            s.apns.early[receipt] = secret
            return nil
        }
        waiter?.resume(returning: secret)
        return true
    }

    /// True when `url` is the redirect of this app's web sign-in (`hearth-<project>://firebaseauth/…`),
    /// which `ASWebAuthenticationSession` delivers itself; the app need not handle it.
    public func canHandle(_ url: URL) -> Bool {
        url.scheme?.lowercased() == WebSignInRequest.callbackScheme(for: hearthApp.options) && url.host == "firebaseauth"
    }

    /// The `sendVerificationCode` fields that prove the app: the receipt and pushed secret, or none
    /// when there is no APNs token, verification is disabled for testing, or the server sends no
    /// pushes (then it decides whether the request needs a proof).
    func appVerificationFields() async throws -> [String: JSON] {
        let (token, type, disabled) = state.withLock {
            ($0.apns.token, $0.apns.type, $0.settings?.isAppVerificationDisabledForTesting == true)
        }
        guard let token, !disabled else { return [:] }
        let r: JSON
        do {
            r = try await client.call(
                .v1("accounts:verifyClient"),
                [
                    "appToken": .string(token.map { String(format: "%02x", $0) }.joined()),
                    "isSandbox": .bool(type == .sandbox || (type == .unknown && Self.isDebugBuild)),
                ])
        } catch let error as NSError where Self.sendsNoPushes(error) {
            return [:]  // the server decides whether a code request without a proof is enough
        }
        guard let receipt = r["receipt"]?.string else {
            throw AuthErrorCode.internalError.error(message: "The verifyClient answer has no receipt.")
        }
        let timeout = r["suggestedTimeout"]?.double ?? 5
        let secret = try await waitForPushedSecret(receipt: receipt, timeout: timeout)
        return ["iosReceipt": .string(receipt), "iosSecret": .string(secret)]
    }

    /// A server without `verifyClient` (404), or one with no APNs key (OPERATION_NOT_ALLOWED), sends no
    /// push to wait for.
    static func sendsNoPushes(_ error: NSError) -> Bool {
        error.userInfo[IdentityToolkitClient.httpStatusKey] as? Int == 404
            || error.userInfo[AuthErrorUserInfoServerCodeKey] as? String == "OPERATION_NOT_ALLOWED"
    }

    /// Waits for `canHandleNotification` to deliver the secret for `receipt`; `notificationNotForwarded`
    /// when the push does not come in time (the app does not forward notifications, or has no push).
    func waitForPushedSecret(receipt: String, timeout: TimeInterval) async throws -> String {
        let timer = Task {
            try await Task.sleep(for: .seconds(timeout))
            let waiter = state.withLock { $0.apns.waiting.removeValue(forKey: receipt) }
            waiter?.resume(throwing: AuthErrorCode.notificationNotForwarded.error())
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let early = state.withLock { s in
                if let secret = s.apns.early.removeValue(forKey: receipt) { return Optional(secret) }
                s.apns.waiting[receipt] = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    static var isDebugBuild: Bool {
        #if DEBUG
            true
        #else
            false
        #endif
    }
}
