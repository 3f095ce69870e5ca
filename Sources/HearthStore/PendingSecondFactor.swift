import Foundation

/// A half-finished multi-factor step, kept by the hash of the opaque credential the client holds:
///
/// - `signIn`: a first factor succeeded for a user with second factors (`mfaPendingCredential`); the second
///   factor turns it into a session for `firstFactor`.
/// - `totpEnrollment`: `mfaEnrollment:start` made a TOTP secret (`totpSessionInfo.sessionInfo`); finalize
///   enrolls it once the user shows a code.
///
/// Used once (`consumePendingSecondFactor`), expires, and only ever stored hashed.
public struct PendingSecondFactor: Sendable, Equatable {
    public enum Purpose: String, Sendable, Equatable {
        case signIn = "sign_in"
        case totpEnrollment = "totp_enrollment"
    }

    /// SHA-256 of the credential.
    public var credentialHash: [UInt8]
    public var projectID: String
    public var uid: String
    public var purpose: Purpose
    /// The first factor's provider (`password`, `google.com`, …): the session's `sign_in_provider`.
    public var firstFactor: String
    /// `totpEnrollment`: the new secret as `MFAEnrollment.Factor.totp` stores it.
    public var totpSecret: String?
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        credentialHash: [UInt8], projectID: String, uid: String, purpose: Purpose, firstFactor: String,
        totpSecret: String? = nil, createdAt: Date, expiresAt: Date
    ) {
        self.credentialHash = credentialHash
        self.projectID = projectID
        self.uid = uid
        self.purpose = purpose
        self.firstFactor = firstFactor
        self.totpSecret = totpSecret
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
