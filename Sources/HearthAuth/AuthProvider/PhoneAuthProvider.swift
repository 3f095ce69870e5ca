import Foundation

/// Phone-number sign-in: send an SMS code, then build a credential from the code.
public final class PhoneAuthProvider: Sendable {
    public static let id = AuthProviderID.phone.rawValue

    let auth: Auth

    init(auth: Auth) {
        self.auth = auth
    }

    /// The provider of the default app's `Auth`.
    public static func provider() -> PhoneAuthProvider { PhoneAuthProvider(auth: .auth()) }

    public static func provider(auth: Auth) -> PhoneAuthProvider { PhoneAuthProvider(auth: auth) }

    /// Asks the server to text a code to `phoneNumber` (E.164, `+16505553434`) in `Auth.languageCode`,
    /// and returns the verification ID to build the credential with. Keep the ID across app
    /// restarts: the user may switch to the SMS app and back.
    ///
    /// For a multi-factor sign-in, pass the resolver's session: the code then goes to the enrolled
    /// second factor.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil, multiFactorSession: MultiFactorSession? = nil
    ) async throws -> String {
        if let multiFactorSession, let user = multiFactorSession.user {
            // Enrolling this number as a second factor of the signed-in user.
            let r = try await user.authorizedCall(.v2("accounts/mfaEnrollment:start")) { idToken in
                ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": .string(phoneNumber)]]
            }
            guard let session = r["phoneSessionInfo"]?["sessionInfo"]?.string else {
                throw AuthErrorCode.internalError.error(message: "The answer has no phoneSessionInfo.sessionInfo.")
            }
            return session
        }
        if let multiFactorSession {
            return try await startSecondFactor(
                multiFactorSession, enrollmentID: nil, phoneNumber: phoneNumber)
        }
        // The silent-push proof when the app gave an APNs token (see Auth+AppVerification). When the server
        // wants a proof the app could not give, the reCAPTCHA page is the fallback, as in FirebaseAuth.
        var body = try await auth.appVerificationFields()
        body["phoneNumber"] = .string(phoneNumber)
        let r: JSON
        do {
            r = try await auth.client.call(.v1("accounts:sendVerificationCode"), body)
        } catch let error as NSError
            where error.domain == AuthErrorDomain && error.code == AuthErrorCode.missingAppCredential.rawValue
                && body["iosReceipt"] == nil
        {
            body["recaptchaToken"] = .string(try await auth.recaptchaTokenFromWebPage(orThrow: error))
            r = try await auth.client.call(.v1("accounts:sendVerificationCode"), body)
        }
        guard let session = r["sessionInfo"]?.string else {
            throw AuthErrorCode.internalError.error(message: "The answer has no sessionInfo.")
        }
        return session
    }

    /// Texts a code to an enrolled second factor during a multi-factor sign-in.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: (any AuthUIDelegate)? = nil,
        multiFactorSession: MultiFactorSession?
    ) async throws -> String {
        guard let multiFactorSession else { throw AuthErrorCode.missingMultiFactorSession.error() }
        return try await startSecondFactor(multiFactorSession, enrollmentID: multiFactorInfo.uid, phoneNumber: nil)
    }

    private func startSecondFactor(_ session: MultiFactorSession, enrollmentID: String?, phoneNumber: String?)
        async throws -> String
    {
        let enrollment =
            enrollmentID ?? session.hints.first { ($0 as? PhoneMultiFactorInfo)?.phoneNumber == phoneNumber }?.uid
        guard let enrollment else { throw AuthErrorCode.multiFactorInfoNotFound.error() }
        guard let pending = session.pendingCredential else { throw AuthErrorCode.invalidMultiFactorSession.error() }
        let r = try await auth.client.call(
            .v2("accounts/mfaSignIn:start"),
            RequestBodies.phoneSecondFactorStart(pendingCredential: pending, enrollmentID: enrollment))
        guard let sessionInfo = r["phoneResponseInfo"]?["sessionInfo"]?.string else {
            throw AuthErrorCode.internalError.error(message: "The answer has no phoneResponseInfo.sessionInfo.")
        }
        return sessionInfo
    }

    /// The credential for the verification ID and the code the user typed.
    public func credential(withVerificationID verificationID: String, verificationCode: String) -> PhoneAuthCredential {
        PhoneAuthCredential(.verification(id: verificationID, code: verificationCode))
    }

    /// Completion-handler form of `verifyPhoneNumber(_:uiDelegate:)`.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil,
        completion: (@MainActor @Sendable (String?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.verifyPhoneNumber(phoneNumber, uiDelegate: uiDelegate) }
    }

    /// Completion-handler form of `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`.
    public func verifyPhoneNumber(
        _ phoneNumber: String, uiDelegate: (any AuthUIDelegate)? = nil, multiFactorSession: MultiFactorSession? = nil,
        completion: (@MainActor @Sendable (String?, Error?) -> Void)?
    ) {
        complete(completion) {
            try await self.verifyPhoneNumber(
                phoneNumber, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession)
        }
    }

    /// Completion-handler form of `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo, uiDelegate: (any AuthUIDelegate)? = nil,
        multiFactorSession: MultiFactorSession?, completion: (@MainActor @Sendable (String?, Error?) -> Void)?
    ) {
        complete(completion) {
            try await self.verifyPhoneNumber(
                with: multiFactorInfo, uiDelegate: uiDelegate, multiFactorSession: multiFactorSession)
        }
    }
}
