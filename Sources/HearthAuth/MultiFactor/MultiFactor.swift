import Foundation

/// A user's second factors: `user.multiFactor`. Enrolling needs a verified e-mail and a recent sign-in.
public final class MultiFactor: Sendable {
    let user: User

    init(user: User) {
        self.user = user
    }

    /// The factors as of the last sign-in or `reload()`.
    public var enrolledFactors: [MultiFactorInfo] { (user.record.mfaInfo ?? []).compactMap(MultiFactorInfo.make) }

    /// A session to enroll a new factor with: pass it to `PhoneAuthProvider.verifyPhoneNumber(_:uiDelegate:
    /// multiFactorSession:)` or `TOTPMultiFactorGenerator.generateSecret(with:)`.
    public func session() async throws -> MultiFactorSession { MultiFactorSession(enrolling: user) }

    public func getSessionWithCompletion(_ completion: (@MainActor @Sendable (MultiFactorSession?, Error?) -> Void)?) {
        complete(completion) { try await self.session() }
    }

    /// Enrolls the factor the assertion proves; the user's tokens are replaced by ones that passed it.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) async throws {
        var body: [String: JSON] = [:]
        if let displayName { body["displayName"] = .string(displayName) }
        switch assertion {
        case let phone as PhoneMultiFactorAssertion:
            body["phoneVerificationInfo"] = try phone.verificationInfo()
        case let totp as TOTPMultiFactorAssertion:
            guard case .secret(let secret) = totp.secretOrID, let session = secret.sessionInfo else {
                throw AuthErrorCode.invalidCredential.error(message: "Enroll with assertionForEnrollment.")
            }
            body["totpVerificationInfo"] = [
                "sessionInfo": .string(session), "verificationCode": .string(totp.oneTimePassword),
            ]
        default:
            throw AuthErrorCode.invalidCredential.error(message: "Unsupported second factor \(assertion.factorID).")
        }
        try await finish(.v2("accounts/mfaEnrollment:finalize"), body)
    }

    public func enroll(
        with assertion: MultiFactorAssertion, displayName: String?,
        completion: (@MainActor @Sendable (Error?) -> Void)?
    ) {
        complete(completion) { try await self.enroll(with: assertion, displayName: displayName) }
    }

    public func unenroll(with factorInfo: MultiFactorInfo) async throws {
        try await unenroll(withFactorUID: factorInfo.uid)
    }

    public func unenroll(withFactorUID factorUID: String) async throws {
        try await finish(.v2("accounts/mfaEnrollment:withdraw"), ["mfaEnrollmentId": .string(factorUID)])
    }

    public func unenroll(with factorInfo: MultiFactorInfo, completion: (@MainActor @Sendable (Error?) -> Void)?) {
        complete(completion) { try await self.unenroll(with: factorInfo) }
    }

    public func unenroll(withFactorUID factorUID: String, completion: (@MainActor @Sendable (Error?) -> Void)?) {
        complete(completion) { try await self.unenroll(withFactorUID: factorUID) }
    }

    /// Sends `body` with the user's ID token, takes the new tokens and reloads the account.
    private func finish(_ endpoint: IdentityToolkitClient.Endpoint, _ body: [String: JSON]) async throws {
        let r = try await user.authorizedCall(endpoint) { idToken in body.merging(["idToken": .string(idToken)]) { $1 }
        }
        if let tokens = TokenSet(identityToolkit: r) { user.apply(tokens) }
        try await user.reload()
    }
}

extension User {
    /// The user's second factors.
    public var multiFactor: MultiFactor { MultiFactor(user: self) }
}
