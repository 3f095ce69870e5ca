import Foundation

/// An enrolled second factor, as `user.multiFactor.enrolledFactors` and a `secondFactorRequired` error list them.
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

    /// From an `mfaInfo` entry of a sign-in answer or of `accounts:lookup`.
    static func make(_ j: JSON) -> MultiFactorInfo? {
        guard let id = j["mfaEnrollmentId"]?.string else { return nil }
        let enrolled = j["enrolledAt"]?.string.flatMap(parseTime) ?? Date(timeIntervalSince1970: 0)
        let name = j["displayName"]?.string
        if let phone = j["phoneInfo"]?.string {
            return PhoneMultiFactorInfo(uid: id, displayName: name, enrollmentDate: enrolled, phoneNumber: phone)
        }
        if j["totpInfo"] != nil { return TOTPMultiFactorInfo(uid: id, displayName: name, enrollmentDate: enrolled) }
        return nil
    }

    /// `google-datetime`: RFC 3339, with or without fractional seconds.
    static func parseTime(_ text: String) -> Date? {
        let precise = ISO8601DateFormatter()
        precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return precise.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}

/// A phone second factor; the number is masked by the server during sign-in.
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    public static let PhoneMultiFactorID = "phone"
    public static let TOTPMultiFactorID = "totp"
    public let phoneNumber: String

    init(uid: String, displayName: String?, enrollmentDate: Date, phoneNumber: String) {
        self.phoneNumber = phoneNumber
        super.init(
            uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: Self.PhoneMultiFactorID)
    }
}

/// An authenticator-app (TOTP) second factor.
public final class TOTPMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    init(uid: String, displayName: String?, enrollmentDate: Date) {
        super.init(
            uid: uid, displayName: displayName, enrollmentDate: enrollmentDate,
            factorID: PhoneMultiFactorInfo.TOTPMultiFactorID)
    }
}

/// Either half of a multi-factor flow: a sign-in that stopped at `secondFactorRequired` (a pending credential and
/// the user's factors), or a signed-in user enrolling a new factor (`user.multiFactor.session()`).
public final class MultiFactorSession: Sendable {
    let pendingCredential: String?
    let hints: [MultiFactorInfo]
    /// The enrolling user; their fresh ID token goes with each enrollment call.
    let user: User?

    init(pendingCredential: String, hints: [MultiFactorInfo]) {
        self.pendingCredential = pendingCredential
        self.hints = hints
        self.user = nil
    }

    init(enrolling user: User) {
        self.pendingCredential = nil
        self.hints = []
        self.user = user
    }
}

/// Proof of a second factor, from `PhoneMultiFactorGenerator` or `TOTPMultiFactorGenerator`.
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

    /// `phoneVerificationInfo`.
    func verificationInfo() throws -> JSON {
        guard case .verification(let id, let code) = credential.proof else {
            throw AuthErrorCode.invalidCredential.error(message: "A second factor needs a verification code.")
        }
        return ["sessionInfo": .string(id), "code": .string(code)]
    }
}

public enum PhoneMultiFactorGenerator {
    /// Wraps the credential for the code sent to the second factor.
    public static func assertion(with credential: PhoneAuthCredential) -> PhoneMultiFactorAssertion {
        PhoneMultiFactorAssertion(credential: credential)
    }
}
