import Foundation
import HearthCore
import HearthStore
import HearthTokens

/// `securetoken.googleapis.com/v1/token` with `grant_type=refresh_token`.
public struct RefreshRequest: Sendable {
    public var grantType: String?
    public var refreshToken: String?

    public init(grantType: String?, refreshToken: String?) {
        self.grantType = grantType
        self.refreshToken = refreshToken
    }
}

public struct RefreshResult: Sendable {
    public var user: UserRecord
    public var tokens: SessionTokens
}

extension AuthEngine {
    /// Exchanges a refresh token for a new ID token and (with rotation on) a new refresh token.
    public func refresh(_ request: RefreshRequest, origin: RequestOrigin) async throws -> RefreshResult {
        guard let grantType = request.grantType.nonEmpty else { throw AuthError(.missingGrantType) }
        guard grantType == "refresh_token" else { throw AuthError(.invalidGrantType) }
        guard let presented = request.refreshToken.nonEmpty else { throw AuthError(.missingRefreshToken) }
        let shape = RefreshTokenCodec.shape(of: presented)
        if shape == .invalid { throw AuthError(.invalidRefreshToken) }
        let presentedHash = RefreshTokenCodec.hash(presented)
        let key: RefreshTokenKey
        if case .keyed(let named) = shape {
            key = named
        } else if let stored = try await store.refreshTokenKey(legacyHash: presentedHash) {
            key = stored
        } else {
            throw AuthError(.invalidRefreshToken)
        }

        let project = origin.project
        let now = clock.now()
        let successor = RefreshTokenCodec.generate(random: random, key: key.successor)
        let outcome = try await store.rotateRefreshToken(
            RefreshRotation(
                projectID: project.projectID, presented: key, presentedHash: presentedHash,
                successorHash: RefreshTokenCodec.hash(successor),
                sealedSuccessor: try RefreshTokenCodec.seal(successor: successor, under: presented), now: now,
                graceSeconds: project.tokens.refreshReuseGraceSeconds, rotate: project.tokens.rotateRefreshTokens))

        let family: RefreshTokenFamily
        let next: String
        switch outcome {
        case .unknown:
            throw AuthError(.invalidRefreshToken)
        case .revoked(let f):
            // Firebase answers USER_NOT_FOUND; its emulator, which forgets the token with the user, INVALID_REFRESH_TOKEN.
            if f.revokeReason == .userDeleted { throw AuthError(origin.emulator ? .invalidRefreshToken : .userNotFound) }
            // Disabling ends the sessions; while the account stays disabled, say so, as Firebase does.
            if try await store.user(projectID: f.projectID, uid: f.uid)?.disabled == true {
                throw AuthError(.userDisabled)
            }
            throw AuthError(.tokenExpired)
        case .reuseDetected(let f):
            logger.warning(
                "refresh token reused after rotation; session revoked",
                metadata: ["uid": "\(f.uid)", "family": "\(f.id)", "ip": "\(origin.clientIP ?? "-")"])
            throw AuthError(.tokenExpired)
        case .kept(let f):
            (family, next) = (f, presented)
        case .rotated(let f):
            (family, next) = (f, successor)
        case .alreadyRotated(let f, let sealed):
            guard let earlier = RefreshTokenCodec.open(sealed: sealed, under: presented) else {
                throw AuthError(.invalidRefreshToken)
            }
            (family, next) = (f, earlier)
        }
        // Through the user cache: current while the store's change stamp is, so a revocation is seen at once.
        guard var user = try await users.user(projectID: family.projectID, uid: family.uid, store: store) else {
            throw AuthError(.userNotFound)
        }
        if user.disabled { throw AuthError(.userDisabled) }
        if family.authTime.secondsSince1970 < user.validSince.secondsSince1970 { throw AuthError(.tokenExpired) }

        // lastRefreshAt is informational: write it at most once a minute per user, not on every refresh.
        if now.timeIntervalSince(user.lastRefreshAt ?? .distantPast) > 60 {
            user.lastRefreshAt = now
            try await recordRefresh(projectID: user.projectID, uid: user.uid, at: now)
        }
        let lifetime = project.tokens.idTokenLifetimeSeconds
        let idToken = try idTokens.mint(
            user: user, signInProvider: family.signInProvider, authTime: family.authTime, lifetimeSeconds: lifetime,
            now: now, extraClaims: family.extraClaims, secondFactor: family.secondFactor)
        return RefreshResult(
            user: user, tokens: SessionTokens(idToken: idToken, refreshToken: next, expiresIn: lifetime))
    }
}

extension AuthEngine {
    /// Deletes refresh-token rows rotated, and families revoked, more than `retention` ago. Within the
    /// retention a replayed old token is recognised as reuse and revokes its session; after it, the
    /// token is merely unknown (INVALID_REFRESH_TOKEN).
    @discardableResult
    public func purgeOldSessions(retention: TimeInterval = 7 * 86400) async throws -> Int {
        let deleted = try await store.purgeRefreshTokens(before: clock.now().addingTimeInterval(-retention))
        if deleted > 0 { logger.info("purged old refresh tokens", metadata: ["rows": "\(deleted)"]) }
        return deleted
    }

    /// Deletes audit events older than `days` days (`hearth serve`'s hourly purge, `auditRetentionDays`).
    public func purgeAuditEvents(olderThanDays days: Int) async throws -> Int {
        let deleted = try await store.purgeAuditEvents(before: clock.now().addingTimeInterval(-Double(days) * 86_400))
        if deleted > 0 { logger.info("purged old audit events", metadata: ["rows": "\(deleted)"]) }
        return deleted
    }
}
