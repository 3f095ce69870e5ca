import Foundation

/// A WebAuthn challenge handed out by `passkeyEnrollment:start` or `passkeySignIn:start`: the time it was issued
/// (`keyPrefix`) and 32 random bytes, kept by its key (those first 8 bytes, then the SHA-256 of the whole challenge)
/// until a finalize claims it (once, across servers: `consumePasskeyChallenge`) or it expires.
///
/// Keys in the order challenges are issued put a finalize's delete near the newest rows, on pages its neighbours'
/// writes have dirtied too, where keys that were hashes alone put each delete on a page of its own; and the expired
/// challenges are the range of keys before `keyPrefix(issuedAt: now - lifetime)`.
public struct PasskeyChallenge: Sendable, Equatable {
    public enum Purpose: String, Sendable, Equatable {
        case enrollment = "enroll"
        case signIn = "sign_in"
    }

    /// The challenge's key: its first 8 bytes, then the SHA-256 of all of it.
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

    /// Keys below this belong to challenges issued more than `lifetime` before `now`, expired by then.
    public static func expiredKeysEnd(at now: Date) -> [UInt8] {
        keyPrefix(issuedAt: now.addingTimeInterval(-lifetime))
    }

    /// The 8 bytes a challenge and its key begin with: microseconds since 1970 at `date`, big-endian, so keys sort
    /// by the time their challenges were issued.
    public static func keyPrefix(issuedAt date: Date) -> [UInt8] {
        let microseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
        return (0..<8).map { UInt8(truncatingIfNeeded: microseconds >> (56 - 8 * $0)) }
    }

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
