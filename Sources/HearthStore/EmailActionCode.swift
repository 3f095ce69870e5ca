import Foundation

/// An e-mail action code (Firebase's "oobCode"): a link's secret that resets a password or verifies an
/// address. Only its SHA-256 hash is stored; it is used once and expires.
public struct EmailActionCode: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case passwordReset = "PASSWORD_RESET"
        case verifyEmail = "VERIFY_EMAIL"
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
        /// Sent to the old address after a change: `email` is the address to restore, `newEmail` the one it left for.
        case recoverEmail = "RECOVER_EMAIL"
        /// E-mail link sign-in: `email` is the address the link signs in.
        case emailSignIn = "EMAIL_SIGNIN"
        /// Sent after a second factor was added: `email` is the account's address, `mfaEnrollmentID` the factor
        /// the link removes.
        case revertSecondFactorAddition = "REVERT_SECOND_FACTOR_ADDITION"
    }

    public var codeHash: [UInt8]
    public var projectID: String
    public var kind: Kind
    /// The account's address when the code was made.
    public var email: String
    /// VERIFY_AND_CHANGE_EMAIL: the address the account moves to.
    public var newEmail: String?
    /// REVERT_SECOND_FACTOR_ADDITION: the enrollment the code removes.
    public var mfaEnrollmentID: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        codeHash: [UInt8], projectID: String, kind: Kind, email: String, newEmail: String? = nil,
        mfaEnrollmentID: String? = nil, createdAt: Date, expiresAt: Date
    ) {
        self.codeHash = codeHash
        self.projectID = projectID
        self.kind = kind
        self.email = email
        self.newEmail = newEmail
        self.mfaEnrollmentID = mfaEnrollmentID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A message the development e-mail outbox holds instead of sending it (`--emulator` or `email.provider: "outbox"`):
/// what the emulator's `oobCodes` route lists.
public struct EmailOutboxMessage: Sendable, Equatable {
    public var projectID: String
    public var email: String
    public var kind: EmailActionCode.Kind
    public var oobCode: String
    public var oobLink: String
    public var sentAt: Date

    public init(
        projectID: String, email: String, kind: EmailActionCode.Kind, oobCode: String, oobLink: String, sentAt: Date
    ) {
        self.projectID = projectID
        self.email = email
        self.kind = kind
        self.oobCode = oobCode
        self.oobLink = oobLink
        self.sentAt = sentAt
    }
}
