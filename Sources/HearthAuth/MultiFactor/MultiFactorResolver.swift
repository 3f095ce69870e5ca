import Foundation

/// An enrolled second factor, as a `secondFactorRequired` error lists them.
// @unchecked: FirebaseAuth's class hierarchy (`as? PhoneMultiFactorInfo`); every stored property
// is an immutable Sendable `let`, and subclasses are final and in this module.
public class MultiFactorInfo: @unchecked Sendable {
    /// The enrollment id.
    public let uid: String
    public let displayName: String?
    public let enrollmentDate: Date
    /// `phone` or `totp`.
    public let factorID: String

    init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String) {
        self.uid = uid
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.factorID = factorID
    }

    /// From an `mfaInfo` entry of a sign-in answer.
    static func make(_ j: JSON) -> MultiFactorInfo? {
        guard let id = j["mfaEnrollmentId"]?.string else { return nil }
        let enrolled =
            j["enrolledAt"]?.string.flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date(timeIntervalSince1970: 0)
        if let phone = j["phoneInfo"]?.string {
            return PhoneMultiFactorInfo(
                uid: id, displayName: j["displayName"]?.string, enrollmentDate: enrolled, phoneNumber: phone)
        }
        return MultiFactorInfo(
            uid: id, displayName: j["displayName"]?.string, enrollmentDate: enrolled,
            factorID: j["totpInfo"] != nil ? "totp" : "phone")
    }
}

/// A phone second factor; the number is masked by the server during sign-in.
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    public static let PhoneMultiFactorID = "phone"
    public let phoneNumber: String

    init(uid: String, displayName: String?, enrollmentDate: Date, phoneNumber: String) {
        self.phoneNumber = phoneNumber
        super.init(
            uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: Self.PhoneMultiFactorID)
    }
}

/// The half-finished sign-in a second factor completes.
public final class MultiFactorSession: Sendable {
    let pendingCredential: String
    let hints: [MultiFactorInfo]

    init(pendingCredential: String, hints: [MultiFactorInfo]) {
        self.pendingCredential = pendingCredential
        self.hints = hints
    }
}

/// Proof of a second factor, from `PhoneMultiFactorGenerator.assertion(with:)`.
// @unchecked: as `MultiFactorInfo`, an immutable class hierarchy closed to this module.
public class MultiFactorAssertion: @unchecked Sendable {
    public let factorID: String

    init(factorID: String) {
        self.factorID = factorID
    }
}

public final class PhoneMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    let credential: PhoneAuthCredential

    init(credential: PhoneAuthCredential) {
        self.credential = credential
        super.init(factorID: PhoneMultiFactorInfo.PhoneMultiFactorID)
    }
}

public enum PhoneMultiFactorGenerator {
    /// Wraps the credential for the code sent to the second factor.
    public static func assertion(with credential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: credential)
    }
}

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

    /// Completes the sign-in with the second factor's proof.
    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        guard let phone = assertion as? PhoneMultiFactorAssertion,
            case .verification(let id, let code) = phone.credential.proof
        else { throw AuthErrorCode.invalidCredential.error(message: "Only phone second factors are supported.") }
        let r = try await auth.client.call(
            .v2("accounts/mfaSignIn:finalize"),
            RequestBodies.phoneSecondFactorFinalize(
                pendingCredential: session.pendingCredential, sessionInfo: id, code: code))
        let user = try await auth.makeUser(r, isAnonymous: false)
        try auth.setCurrentUser(user)
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: PhoneAuthProvider.id, isNewUser: false))
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
