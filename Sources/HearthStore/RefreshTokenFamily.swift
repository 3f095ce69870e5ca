import Foundation
import HearthCore

/// One sign-in session: the chain of refresh tokens that descend from one sign-in.
///
/// Tokens themselves are never stored, only their SHA-256 hashes.
public struct RefreshTokenFamily: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var uid: String
    /// When the user signed in; becomes the ID token's `auth_time`.
    public var authTime: Date
    /// `password`, `anonymous`, `google.com`, … for the ID token's `firebase.sign_in_provider`.
    public var signInProvider: String
    public var createdAt: Date
    public var revokedAt: Date?
    public var revokeReason: RefreshRevocationReason?
    /// Claims that every ID token of this session carries, as JSON object text: a custom token's `claims`.
    public var extraClaims: String?
    /// The second factor the sign-in passed, for every ID token of the session.
    public var secondFactor: SecondFactorClaim?
    /// The signing-in client's network, never its full address (`SessionClient.prefix`).
    public var ipPrefix: String?
    /// The signing-in client's `User-Agent`, cut to `SessionClient.maxUserAgentLength`.
    public var userAgent: String?

    public init(
        id: String, projectID: String, uid: String, authTime: Date, signInProvider: String, createdAt: Date,
        revokedAt: Date? = nil, revokeReason: RefreshRevocationReason? = nil, extraClaims: String? = nil,
        secondFactor: SecondFactorClaim? = nil, ipPrefix: String? = nil, userAgent: String? = nil
    ) {
        self.ipPrefix = ipPrefix
        self.userAgent = userAgent
        self.extraClaims = extraClaims
        self.secondFactor = secondFactor
        self.id = id
        self.projectID = projectID
        self.uid = uid
        self.authTime = authTime
        self.signInProvider = signInProvider
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.revokeReason = revokeReason
    }
}

public enum RefreshRevocationReason: String, Sendable, Equatable {
    case userDeleted = "user_deleted"
    case reuseDetected = "reuse_detected"
    case revoked = "revoked"
}

/// Where a refresh token is stored: its session and its place in the session's chain (0 for the sign-in's token,
/// one more for each rotation). Tokens carry it (`RefreshTokenCodec`), so a rotation's update and insert fall on
/// the same page of the store, next to each other, instead of at two random places of a table keyed by hash; the
/// stored hash still proves the token.
public struct RefreshTokenKey: Sendable, Equatable, Hashable {
    public var familyID: String
    public var generation: Int64

    public init(familyID: String, generation: Int64) {
        self.familyID = familyID
        self.generation = generation
    }

    /// The key of the token that replaces this one.
    public var successor: RefreshTokenKey { RefreshTokenKey(familyID: familyID, generation: generation + 1) }
}

/// A request to use a refresh token.
///
/// The rules, applied in one transaction (decided in one place: `decision(for:)`, `RefreshRotationRule.swift`):
/// - no token at the presented key with the presented hash, or a token of another project → `.unknown` (nothing
///   changes); a token of one of the project's
///   tenants belongs to the project (clients refresh without naming the tenant, as with Firebase);
/// - revoked family → `.revoked`;
/// - `rotate == false` → `.kept` (the same token stays valid);
/// - the family's current token → the successor is stored, the presented token remembers it
///   (sealed so only a holder of the presented token can open it) → `.rotated`;
/// - a token rotated at most `graceSeconds` ago → `.alreadyRotated` with the sealed successor,
///   so racing tabs, threads and processes all get the same successor;
/// - a token rotated longer ago → the family is revoked (`reuseDetected`) → `.reuseDetected`.
public struct RefreshRotation: Sendable {
    /// The project the request came in for; a token of another project is unknown here.
    public var projectID: String
    /// Scope keys of the project's tenants start with this.
    public var tenantPrefix: String { TenantScope.tenantPrefix(of: projectID) }
    /// Where the presented token is stored; its successor is stored at `presented.successor`.
    public var presented: RefreshTokenKey
    public var presentedHash: [UInt8]
    public var successorHash: [UInt8]
    /// The successor token encrypted under a key derived from the presented token.
    public var sealedSuccessor: [UInt8]
    public var now: Date
    public var graceSeconds: Int
    public var rotate: Bool

    public init(
        projectID: String, presented: RefreshTokenKey, presentedHash: [UInt8], successorHash: [UInt8],
        sealedSuccessor: [UInt8], now: Date, graceSeconds: Int, rotate: Bool
    ) {
        self.projectID = projectID
        self.presented = presented
        self.presentedHash = presentedHash
        self.successorHash = successorHash
        self.sealedSuccessor = sealedSuccessor
        self.now = now
        self.graceSeconds = graceSeconds
        self.rotate = rotate
    }
}

public enum RefreshRotationOutcome: Sendable, Equatable {
    case unknown
    case revoked(RefreshTokenFamily)
    case kept(RefreshTokenFamily)
    case rotated(RefreshTokenFamily)
    case alreadyRotated(RefreshTokenFamily, sealedSuccessor: [UInt8])
    case reuseDetected(RefreshTokenFamily)
}
