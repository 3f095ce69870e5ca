import Foundation
import HearthCore

/// The writes of one passkey sign-in (`UserStore.recordPasskeySignIn`), made in one transaction and only by the
/// request that takes its challenge: the challenge is deleted, the passkey's verified counter and backup flags
/// stored, and, when the sign-in is let through, its session started and its time recorded.
public struct PasskeySignIn: Sendable {
    /// The session a sign-in that was let through starts: its refresh-token family and first token's hash.
    public struct Session: Sendable {
        public var family: RefreshTokenFamily
        public var tokenHash: [UInt8]

        public init(family: RefreshTokenFamily, tokenHash: [UInt8]) {
            self.family = family
            self.tokenHash = tokenHash
        }
    }

    /// SHA-256 of the `sign_in` challenge the assertion answers.
    public var challengeHash: [UInt8]
    public var projectID: String
    public var uid: String
    public var credentialID: [UInt8]
    /// The verified assertion's counter: stored unless the stored one meanwhile moved past it.
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    /// Nil for a verified assertion whose sign-in was refused afterwards (a disabled account, `beforeSignIn`).
    public var session: Session?
    public var at: Date

    public init(
        challengeHash: [UInt8], projectID: String, uid: String, credentialID: [UInt8], signCount: UInt32,
        backupEligible: Bool, backedUp: Bool, session: Session?, at: Date
    ) {
        self.challengeHash = challengeHash
        self.projectID = projectID
        self.uid = uid
        self.credentialID = credentialID
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.session = session
        self.at = at
    }
}

extension PasskeySignIn {
    /// The user as a store holds it once this sign-in is recorded (`UserStore.recordPasskeySignIn` answered true),
    /// from the user as it was: the passkey's counter (never moved back), flags and last use, and with a session the
    /// last sign-in and last refresh, at the store's millisecond precision. The engine's user cache keeps it rather
    /// than reading the user again; the store conformance suite holds every store to it.
    public func applied(to user: UserRecord) -> UserRecord {
        let at = Date(millisecondsSince1970: at.millisecondsSince1970)
        var user = user
        if let i = user.passkeys.firstIndex(where: { $0.credentialID == credentialID }) {
            user.passkeys[i].signCount = max(user.passkeys[i].signCount, signCount)
            user.passkeys[i].backupEligible = backupEligible
            user.passkeys[i].backedUp = backedUp
            user.passkeys[i].lastUsedAt = at
        }
        if session != nil {
            user.lastLoginAt = at
            user.lastRefreshAt = at
        }
        return user
    }
}
