import Foundation

/// Finishes a sign-in that stopped with `secondFactorRequired`; found in the error's userInfo under
/// `AuthErrorUserInfoMultiFactorResolverKey`.
public final class MultiFactorResolver: Sendable {
    public let auth: Auth
    public let session: MultiFactorSession
    /// The user's enrolled factors, to pick one from.
    public var hints: [MultiFactorInfo] { session.hints }

    init(auth: Auth, session: MultiFactorSession) {
        self.auth = auth
        self.session = session
    }

    /// Completes the sign-in with the second factor's proof: an SMS code (`PhoneMultiFactorGenerator`) or a code
    /// from the authenticator app (`TOTPMultiFactorGenerator.assertionForSignIn`).
    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        guard let pending = session.pendingCredential else { throw AuthErrorCode.invalidMultiFactorSession.error() }
        let body: [String: JSON]
        switch assertion {
        case let phone as PhoneMultiFactorAssertion:
            body = ["mfaPendingCredential": .string(pending), "phoneVerificationInfo": try phone.verificationInfo()]
        case let totp as TOTPMultiFactorAssertion:
            guard case .enrollmentID(let id) = totp.secretOrID else {
                throw AuthErrorCode.invalidCredential.error(message: "Sign in with assertionForSignIn.")
            }
            body = [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(id),
                "totpVerificationInfo": ["verificationCode": .string(totp.oneTimePassword)],
            ]
        default:
            throw AuthErrorCode.invalidCredential.error(message: "Unsupported second factor \(assertion.factorID).")
        }
        let r = try await auth.client.call(.v2("accounts/mfaSignIn:finalize"), body)
        let user = try await auth.makeUser(r, isAnonymous: false)
        try auth.setCurrentUser(user)
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: assertion.factorID, isNewUser: false))
    }

    public func resolveSignIn(
        with assertion: MultiFactorAssertion, completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)?
    ) {
        complete(completion) { try await self.resolveSignIn(with: assertion) }
    }
}

extension Auth {
    /// A sign-in answer for a multi-factor user has a pending credential instead of tokens.
    func throwIfSecondFactorRequired(_ r: JSON) throws {
        guard let pending = r["mfaPendingCredential"]?.string else { return }
        let hints = (r["mfaInfo"]?.array ?? []).compactMap(MultiFactorInfo.make)
        let resolver = MultiFactorResolver(
            auth: self, session: MultiFactorSession(pendingCredential: pending, hints: hints))
        throw AuthErrorCode.secondFactorRequired.error(userInfo: [AuthErrorUserInfoMultiFactorResolverKey: resolver])
    }
}
