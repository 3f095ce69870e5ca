import Foundation

/// A WebAuthn challenge handed out by `passkeyEnrollment:start` or `passkeySignIn:start`, kept by the SHA-256 of its
/// 32 random bytes until a finalize claims it (once, across servers: `consumePasskeyChallenge`) or it expires.
public struct PasskeyChallenge: Sendable, Equatable {
    public enum Purpose: String, Sendable, Equatable {
        case enrollment = "enroll"
        case signIn = "sign_in"
    }

    /// SHA-256 of the challenge bytes.
    public var challengeHash: [UInt8]
    /// The scope (project, or project and tenant) it was issued in.
    public var projectID: String
    public var purpose: Purpose
    /// The enrolling user (enrollment only).
    public var uid: String?
    /// The WebAuthn user handle offered to the authenticator (enrollment only).
    public var userHandle: [UInt8]?
    public var createdAt: Date
    public var expiresAt: Date

    /// How long a challenge may be answered: WebAuthn's recommended ceremony timeout, as Supabase keeps it.
    public static let lifetime: TimeInterval = 300

    public init(
        challengeHash: [UInt8], projectID: String, purpose: Purpose, uid: String? = nil, userHandle: [UInt8]? = nil,
        createdAt: Date, expiresAt: Date
    ) {
        self.challengeHash = challengeHash
        self.projectID = projectID
        self.purpose = purpose
        self.uid = uid
        self.userHandle = userHandle
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
