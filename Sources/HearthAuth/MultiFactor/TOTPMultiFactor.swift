import Foundation

#if canImport(AppKit)
    import AppKit
#endif
#if canImport(UIKit)
    import UIKit
#endif

/// A new authenticator-app secret from `TOTPMultiFactorGenerator.generateSecret(with:)`, to show the user (as text
/// or a QR code) and then enroll with a first code.
public final class TOTPSecret: Sendable {
    let secretKey: String
    let hashingAlgorithm: String?
    let codeLength: Int
    let codeIntervalSeconds: Int
    let enrollmentCompletionDeadline: Date?
    let sessionInfo: String?

    init(
        secretKey: String, hashingAlgorithm: String?, codeLength: Int, codeIntervalSeconds: Int,
        enrollmentCompletionDeadline: Date?, sessionInfo: String?
    ) {
        self.secretKey = secretKey
        self.hashingAlgorithm = hashingAlgorithm
        self.codeLength = codeLength
        self.codeIntervalSeconds = codeIntervalSeconds
        self.enrollmentCompletionDeadline = enrollmentCompletionDeadline
        self.sessionInfo = sessionInfo
    }

    /// The base32 secret, for users who type it into their app.
    public func sharedSecretKey() -> String { secretKey }

    /// The `otpauth://` URI for a QR code, built as FirebaseAuth builds it.
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) -> String {
        guard let hashingAlgorithm, codeLength > 0 else { return "" }
        return "otpauth://totp/\(issuer):\(accountName)?secret=\(secretKey)&issuer=\(issuer)"
            + "&algorithm=\(hashingAlgorithm)&digits=\(codeLength)"
    }

    /// Opens the URI in the authenticator app where the platform can; does nothing elsewhere (Linux).
    @MainActor public func openInOTPApp(withQRCodeURL qrCodeURL: String) {
        guard let url = URL(string: qrCodeURL) else { return }
        #if canImport(UIKit) && !os(watchOS)
            // Through the runtime, as FirebaseAuth does: `UIApplication.shared` is unavailable to app extensions.
            let selector = NSSelectorFromString("sharedApplication")
            guard UIApplication.responds(to: selector),
                let application = UIApplication.perform(selector)?.takeUnretainedValue() as? UIApplication
            else { return }
            application.open(url)
        #elseif canImport(AppKit)
            NSWorkspace.shared.open(url)
        #else
            _ = url
        #endif
    }
}

public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    enum SecretOrID: Sendable {
        case secret(TOTPSecret)
        case enrollmentID(String)
    }

    let secretOrID: SecretOrID
    let oneTimePassword: String

    init(secretOrID: SecretOrID, oneTimePassword: String) {
        self.secretOrID = secretOrID
        self.oneTimePassword = oneTimePassword
        super.init(factorID: PhoneMultiFactorInfo.TOTPMultiFactorID)
    }
}

public enum TOTPMultiFactorGenerator {
    /// Asks the server for a new secret for the enrolling user (`user.multiFactor.session()`).
    public static func generateSecret(with session: MultiFactorSession) async throws -> TOTPSecret {
        guard let user = session.user else { throw AuthErrorCode.invalidMultiFactorSession.error() }
        let r = try await user.authorizedCall(.v2("accounts/mfaEnrollment:start")) { idToken in
            ["idToken": .string(idToken), "totpEnrollmentInfo": [:]]
        }
        guard let info = r["totpSessionInfo"], let key = info["sharedSecretKey"]?.string else {
            throw AuthErrorCode.internalError.error(message: "Error generating TOTP secret.")
        }
        return TOTPSecret(
            secretKey: key, hashingAlgorithm: info["hashingAlgorithm"]?.string,
            codeLength: Int(info["verificationCodeLength"]?.double ?? 0),
            codeIntervalSeconds: Int(info["periodSec"]?.double ?? 0),
            enrollmentCompletionDeadline: info["finalizeEnrollmentTime"]?.string.flatMap(MultiFactorInfo.parseTime),
            sessionInfo: info["sessionInfo"]?.string)
    }

    public static func generateSecret(
        with session: MultiFactorSession, completion: @escaping @MainActor @Sendable (TOTPSecret?, Error?) -> Void
    ) {
        complete(completion) { try await generateSecret(with: session) }
    }

    /// The first code from the app, to enroll `secret` with `user.multiFactor.enroll(with:displayName:)`.
    public static func assertionForEnrollment(with secret: TOTPSecret, oneTimePassword: String)
        -> TOTPMultiFactorAssertion
    {
        TOTPMultiFactorAssertion(secretOrID: .secret(secret), oneTimePassword: oneTimePassword)
    }

    /// A code from the app for the enrolled factor `enrollmentID` (the hint's `uid`), for `resolveSignIn(with:)`.
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String, oneTimePassword: String)
        -> TOTPMultiFactorAssertion
    {
        TOTPMultiFactorAssertion(secretOrID: .enrollmentID(enrollmentID), oneTimePassword: oneTimePassword)
    }
}
