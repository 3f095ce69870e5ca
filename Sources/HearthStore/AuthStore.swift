import Foundation
import HearthCore

/// Everything Hearth persists. Every piece of state that matters lives behind this protocol,
/// so two servers on one database behave as one service.
///
/// Implementations must make each method atomic; `rotateRefreshToken` in particular must
/// serialise concurrent calls for the same token (across processes, not only threads).
/// `AuthStoreConformance` in the test suite states the contract as executable cases.
public protocol AuthStore: Sendable {
    /// A short name for logs ("sqlite:/path", "postgres://host/db").
    var description: String { get }

    // MARK: Users

    /// Inserts a new user. Throws `StoreError.uidExists` or `.emailExists`.
    func insertUser(_ user: UserRecord) async throws
    func user(projectID: String, uid: String) async throws -> UserRecord?
    /// Looks up by the lower-cased e-mail.
    func user(projectID: String, email: String) async throws -> UserRecord?
    /// Replaces a user's stored fields if the stored version is still `user.version`, then bumps it.
    /// Throws `.userNotFound`, `.emailExists`, or `.versionConflict` when someone else updated first.
    func updateUser(_ user: UserRecord) async throws
    /// Records a sign-in time without touching anything else (no version bump). A sign-in mints an ID token, so it
    /// is also the user's latest refresh (`lastRefreshAt`), as Firebase reports it.
    func recordSignIn(projectID: String, uid: String, at: Date) async throws
    /// Records a token refresh time without touching anything else (no version bump).
    func recordRefresh(projectID: String, uid: String, at: Date) async throws
    /// Deletes a user and revokes their refresh-token families (reason `userDeleted`). Returns whether it existed.
    func deleteUser(projectID: String, uid: String) async throws -> Bool
    func countUsers(projectID: String) async throws -> Int

    // MARK: Refresh tokens

    /// Starts a new session: a family whose first token has `tokenHash`.
    func insertRefreshFamily(_ family: RefreshTokenFamily, tokenHash: [UInt8]) async throws
    /// Uses a refresh token, atomically; see `RefreshRotation` for the rules.
    func rotateRefreshToken(_ rotation: RefreshRotation) async throws -> RefreshRotationOutcome
    /// Ends every session of a user (sign-out everywhere, admin revocation).
    func revokeRefreshFamilies(projectID: String, uid: String, reason: RefreshRevocationReason, at: Date) async throws
    /// Forgets what is no longer needed: tokens rotated before `cutoff` (a replay of one is then merely
    /// unknown rather than detected as reuse) and families revoked before it, with their tokens.
    /// Returns the number of token rows deleted.
    func purgeRefreshTokens(before cutoff: Date) async throws -> Int

    // MARK: Phone verification

    func insertPhoneVerification(_ verification: PhoneVerification) async throws
    /// Checks `codeHash` against the session's, counting the attempt; see `PhoneCodeOutcome`.
    /// At most `maxAttempts` wrong codes are allowed per session.
    func attemptPhoneCode(sessionHash: [UInt8], codeHash: [UInt8], maxAttempts: Int, now: Date) async throws
        -> PhoneCodeOutcome
    /// Deletes a session that will never be used (its SMS could not be sent).
    func deletePhoneVerification(sessionHash: [UInt8]) async throws
    /// Whether the code of `sessionHash` can still be entered (not used, not given up on, not expired).
    func phoneVerificationIsLive(sessionHash: [UInt8], now: Date) async throws -> Bool
    func insertPhoneProof(_ proof: PhoneProof) async throws
    /// The phone number a live proof stands for, consuming it; nil when unknown or expired.
    func consumePhoneProof(proofHash: [UInt8], projectID: String, now: Date) async throws -> String?
    /// Looks up by E.164 phone number.
    func user(projectID: String, phoneNumber: String) async throws -> UserRecord?

    // MARK: Development SMS outbox

    func appendOutbox(_ message: OutboxMessage) async throws
    /// Messages sent to a project, oldest first.
    func outbox(projectID: String) async throws -> [OutboxMessage]

    // MARK: Signing keys

    func signingKeys() async throws -> [StoredSigningKey]
    /// Inserts `key` only when no key exists yet (first start); returns the keys now stored.
    func insertFirstSigningKey(_ key: StoredSigningKey) async throws -> [StoredSigningKey]
    func insertSigningKey(_ key: StoredSigningKey) async throws
    func retireSigningKey(kid: String, at: Date) async throws
    func deleteSigningKey(kid: String) async throws

    // MARK: Rate limits

    /// Adds one to the fixed-window counter `key` and returns its value in the current window.
    func incrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int
    /// The counter's value in the current window, without changing it.
    func counter(_ key: String, windowSeconds: Int, now: Date) async throws -> Int
    func resetCounter(_ key: String) async throws
    /// Takes one back from the counter `key` if it is still in the current window and above zero: the undo of an
    /// `incrementCounter` that reserved an attempt which then did not count (a correct password).
    func decrementCounter(_ key: String, windowSeconds: Int, now: Date) async throws
    /// Records an event under `key` unless the last one recorded was less than `seconds` ago; returns
    /// whether it was recorded. A sliding cooldown, exact where fixed windows are not.
    func claimInterval(_ key: String, seconds: Int, now: Date) async throws -> Bool

    // MARK: Administration

    /// A page of a project's users in `uid` order, starting after `afterUID`.
    func users(projectID: String, afterUID: String?, limit: Int) async throws -> [UserRecord]
    /// Imports a batch in one transaction. Each user is inserted, or replaces the stored user with its uid when
    /// `overwrite` is set; a user that would break uniqueness is skipped and reported by its index.
    func importUsers(_ users: [UserRecord], overwrite: Bool) async throws -> [Int: StoreError]
    /// Deletes every user of a project with their sessions (the emulator's reset); returns how many.
    func deleteAllUsers(projectID: String) async throws -> Int

    func insertServiceAccountKey(_ key: ServiceAccountKey) async throws
    func serviceAccountKey(keyID: String) async throws -> ServiceAccountKey?
    /// Every key, revoked ones included, oldest first.
    func serviceAccountKeys() async throws -> [ServiceAccountKey]
    /// Returns whether a live key was revoked.
    func revokeServiceAccountKey(keyID: String, at: Date) async throws -> Bool

    // MARK: E-mail action codes

    func insertEmailActionCode(_ code: EmailActionCode) async throws
    /// The live code with this hash, without using it up (checking a reset link before showing its form).
    func emailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode?
    /// Deletes the code and returns it if it was live: each code works once, even under concurrent use.
    func consumeEmailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode?
    func appendEmailOutbox(_ message: EmailOutboxMessage) async throws
    /// Messages to a project, oldest first.
    func emailOutbox(projectID: String) async throws -> [EmailOutboxMessage]

    // MARK: Second factors

    func insertPendingSecondFactor(_ pending: PendingSecondFactor) async throws
    /// The live pending step with this hash, without using it up (`mfaSignIn:start` sends a code for it).
    func pendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws -> PendingSecondFactor?
    /// Deletes the step and returns it if it was live: each works once, even under concurrent use.
    func consumePendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws -> PendingSecondFactor?

    // MARK: Browser sign-in

    /// Stores an authorization request the handler sent to a provider (and forgets expired ones).
    func insertPendingAuthorization(_ pending: PendingAuthorization) async throws
    /// The live request with this state hash, without using it up (the provider's redirect back to the handler).
    func pendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization?
    /// Deletes the request and returns it if it was live: each code exchange happens once, even under concurrent use.
    func consumePendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization?

    /// Project settings changed at run time through the admin config API, as JSON object text.
    func projectSettings(projectID: String) async throws -> String?
    func saveProjectSettings(projectID: String, settings: String, at: Date) async throws
    /// Every stored settings document whose id starts with `prefix` (a project's tenants: `p/tenants/`), by id.
    func projectSettings(prefix: String) async throws -> [(projectID: String, settings: String)]
    /// Forgets a settings document (a deleted tenant's); returns whether it existed.
    func deleteProjectSettings(projectID: String) async throws -> Bool

    /// Releases connections. Further calls fail.
    func shutdown() async throws

    // MARK: Federated identities

    /// The user linked to `rawID` at `providerID` (Apple's or Google's `sub`, a Facebook user id), if any.
    /// Each (provider, raw id) belongs to at most one user per project: inserting or updating a user whose
    /// links include one held by another user throws `StoreError.federatedIDExists`.
    func user(projectID: String, providerID: String, rawID: String) async throws -> UserRecord?
    /// A user with a provider link that carries `email` (as the provider last gave it, lower-cased), the lowest
    /// uid when several have one; for createAuthUri, which lists an address's sign-in methods.
    func user(projectID: String, providerEmail: String) async throws -> UserRecord?
    /// Records the single use of `key` (a provider token's subject and nonce, a pending credential) until
    /// `until`; returns false when it was already used and that use has not expired. Expired uses may be forgotten.
    func claimSingleUse(_ key: String, until: Date, now: Date) async throws -> Bool

    // MARK: Caching

    /// A stamp that differs from any earlier one once a change of a stored user (an update or delete of `users`,
    /// any write of provider links: anything an existing `UserRecord` is read from) has been committed since, by
    /// this process or by any other
    /// on the same database; nil when the store cannot tell cheaply. A cache of users (the engine's user cache)
    /// reads the stamp *before* reading the user and keeps them together: an entry is current while the stamp is
    /// unchanged, so a revocation committed anywhere is seen by the next request (PostgreSQL: once its
    /// notification has arrived; docs/ARCHITECTURE.md gives the bound).
    func changeStamp() -> UInt64?
}

extension AuthStore {
    public func changeStamp() -> UInt64? { nil }
}

/// The database cannot be reached right now: it is shutting down or restarting, refused or dropped the
/// connection, or no pooled connection became free in time. A passing condition the server answers with
/// 503 UNAVAILABLE (clients retry); the store reconnects by itself.
public struct StoreUnavailable: Error, Sendable, CustomStringConvertible {
    /// What failed, for the log; never shown to clients.
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "the database is unavailable: \(reason)" }
}

/// Failures a store reports that the engine turns into Firebase errors.
public enum StoreError: Error, Sendable, Equatable {
    case uidExists
    case emailExists
    case phoneNumberExists
    case userNotFound
    case versionConflict
    /// A provider identity (provider id and raw id) already linked to another user.
    case federatedIDExists
}
