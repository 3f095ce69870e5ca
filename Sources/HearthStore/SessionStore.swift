import Foundation
import HearthCore

/// Sessions: refresh-token families and the rotation of their tokens (`RefreshRotation`, decided by
/// `RefreshRotation.decision(for:)`).
public protocol SessionStore: Sendable {
    /// Starts a new session: a family whose first token (generation 0) has `tokenHash`.
    func insertRefreshFamily(_ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws

    /// Where a token issued before tokens carried their key (`hrt1_`) is stored, found by its hash; nil when no
    /// such token is known. Only tokens stored before the store keyed tokens by family are found here.
    func refreshTokenKey(legacyHash: [UInt8]) async throws -> RefreshTokenKey?

    /// Uses a refresh token, atomically; see `RefreshRotation` for the rules.
    func rotateRefreshToken(_ rotation: RefreshRotation) async throws -> RefreshRotationOutcome

    /// Ends every session of a user (sign-out everywhere, admin revocation).
    func revokeRefreshFamilies(projectID: String, uid: String, reason: RefreshRevocationReason, at: Date) async throws

    /// The live (unrevoked) sessions of a user, oldest first.
    func sessions(projectID: String, uid: String) async throws -> [SessionSummary]

    /// Ends one session of a user. False when `familyID` is not a live session of that user (another user's
    /// session is never ended).
    func revokeRefreshFamily(projectID: String, uid: String, familyID: String, reason: RefreshRevocationReason, at: Date)
        async throws -> Bool

    /// Forgets what is no longer needed: tokens rotated before `cutoff` (a replay of one is then merely
    /// unknown rather than detected as reuse) and families revoked before it, with their tokens.
    /// Returns the number of token rows deleted.
    func purgeRefreshTokens(before cutoff: Date) async throws -> Int
}
