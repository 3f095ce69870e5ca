import Foundation
import HearthCore

/// The presented token's row as a store read it, locked for the rest of the rotation: its family, and whether and
/// when it was rotated. nil stands for no such token in the project (or its tenants).
public struct PresentedRefreshToken: Sendable, Equatable {
    public var family: RefreshTokenFamily
    /// When this token was used up, in milliseconds since 1970 as stored; nil while it is the family's current one.
    public var rotatedAtMilliseconds: Int64?
    /// Its successor, sealed under a key derived from this token; kept with `rotatedAtMilliseconds`.
    public var sealedSuccessor: [UInt8]?

    public init(family: RefreshTokenFamily, rotatedAtMilliseconds: Int64?, sealedSuccessor: [UInt8]?) {
        self.family = family
        self.rotatedAtMilliseconds = rotatedAtMilliseconds
        self.sealedSuccessor = sealedSuccessor
    }
}

/// What one use of a refresh token comes to. The raw values are the words the PostgreSQL statement uses for them.
public enum RefreshRotationDecision: String, Sendable, CaseIterable {
    /// No such token here: nothing changes.
    case unknown
    /// The family was revoked: nothing changes.
    case revoked
    /// Rotation is off: the same token stays valid, nothing changes.
    case kept
    /// The family's current token: the store marks it rotated (with the sealed successor) and inserts the successor.
    case rotated
    /// Rotated within the grace window: the sealed successor is handed back, nothing changes.
    case alreadyRotated = "already_rotated"
    /// Rotated before the grace window: the store revokes the family (`reuseDetected`).
    case reuseDetected = "reuse_detected"
}

extension RefreshRotation {
    /// The rotation rule, the one place it is decided (`RefreshRotation` states it in words). Both stores fetch the
    /// presented token's row under their lock, ask this, and write what the answer calls for; the PostgreSQL
    /// statement, which decides and writes in one round trip, spells the same cases in its `presented` CTE and
    /// the store checks every answer of it against this function.
    public func decision(for presented: PresentedRefreshToken?) -> RefreshRotationDecision {
        guard let presented else { return .unknown }
        if presented.family.revokedAt != nil { return .revoked }
        if !rotate { return .kept }
        guard let rotatedAt = presented.rotatedAtMilliseconds else { return .rotated }
        if now.millisecondsSince1970 - rotatedAt <= Int64(graceSeconds) * 1000, presented.sealedSuccessor != nil {
            return .alreadyRotated
        }
        return .reuseDetected
    }

    /// The answer for `presented`: the decision with the family as it is once the store has written it.
    public func outcome(for presented: PresentedRefreshToken?) -> RefreshRotationOutcome {
        let decision = decision(for: presented)
        guard let presented else { return .unknown }
        let family = presented.family
        switch decision {
        case .unknown: return .unknown
        case .revoked: return .revoked(family)
        case .kept: return .kept(family)
        case .rotated: return .rotated(family)
        case .alreadyRotated: return .alreadyRotated(family, sealedSuccessor: presented.sealedSuccessor ?? [])
        case .reuseDetected:
            var revoked = family
            revoked.revokedAt = now
            revoked.revokeReason = .reuseDetected
            return .reuseDetected(revoked)
        }
    }
}

extension RefreshRotationOutcome {
    /// The decision this outcome stands for.
    public var decision: RefreshRotationDecision {
        switch self {
        case .unknown: .unknown
        case .revoked: .revoked
        case .kept: .kept
        case .rotated: .rotated
        case .alreadyRotated: .alreadyRotated
        case .reuseDetected: .reuseDetected
        }
    }
}
