/// reCAPTCHA Enterprise, which FirebaseAuth drives through Google's RecaptchaEnterprise SDK. HearthAuth
/// does not link that SDK, so these fail as FirebaseAuth does without it (`recaptchaSDKNotLinked`).
extension Auth {
    public func initializeRecaptchaConfig() async throws {
        throw AuthErrorCode.recaptchaSDKNotLinked.error(
            message: "HearthAuth does not include the reCAPTCHA Enterprise SDK; use APNs app verification.")
    }

    public func initializeRecaptchaConfig(completion: (@MainActor @Sendable (Error?) -> Void)?) {
        complete(completion) { try await self.initializeRecaptchaConfig() }
    }
}
