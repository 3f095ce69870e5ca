import Foundation
import HearthCore

/// One-time codes and what is used once: phone codes and proofs, e-mail action codes, pending sign-ins (a second
/// factor, a browser sign-in), single-use keys, and the development outboxes of SMS and e-mail. Each is stored as a
/// hash and consumed atomically.
public protocol OneTimeCodeStore: Sendable {
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

    func appendOutbox(_ message: OutboxMessage) async throws

    /// Messages sent to a project, oldest first.
    func outbox(projectID: String) async throws -> [OutboxMessage]

    func insertEmailActionCode(_ code: EmailActionCode) async throws

    /// The live code with this hash, without using it up (checking a reset link before showing its form).
    func emailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode?

    /// Deletes the code and returns it if it was live: each code works once, even under concurrent use.
    func consumeEmailActionCode(hash: [UInt8], projectID: String, now: Date) async throws -> EmailActionCode?

    func appendEmailOutbox(_ message: EmailOutboxMessage) async throws

    /// Messages to a project, oldest first.
    func emailOutbox(projectID: String) async throws -> [EmailOutboxMessage]

    func insertPendingSecondFactor(_ pending: PendingSecondFactor) async throws

    /// The live pending step with this hash, without using it up (`mfaSignIn:start` sends a code for it).
    func pendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws -> PendingSecondFactor?

    /// Deletes the step and returns it if it was live: each works once, even under concurrent use.
    func consumePendingSecondFactor(hash: [UInt8], projectID: String, now: Date) async throws -> PendingSecondFactor?

    /// Stores an authorization request the handler sent to a provider (and forgets expired ones).
    func insertPendingAuthorization(_ pending: PendingAuthorization) async throws

    /// The live request with this state hash, without using it up (the provider's redirect back to the handler).
    func pendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization?

    /// Deletes the request and returns it if it was live: each code exchange happens once, even under concurrent use.
    func consumePendingAuthorization(stateHash: [UInt8], now: Date) async throws -> PendingAuthorization?

    /// Records the single use of `key` (a provider token's subject and nonce, a pending credential) until
    /// `until`; returns false when it was already used and that use has not expired. Expired uses may be forgotten.
    func claimSingleUse(_ key: String, until: Date, now: Date) async throws -> Bool

    /// Stores a passkey challenge (and forgets expired ones).
    func insertPasskeyChallenge(_ challenge: PasskeyChallenge) async throws

    /// Deletes the challenge and returns it if it was live: a challenge is answered once, even when the same
    /// response reaches two servers at once.
    func consumePasskeyChallenge(hash: [UInt8], projectID: String, now: Date) async throws -> PasskeyChallenge?

    /// The live challenge with this hash, without using it up: a sign-in looks before it verifies, and takes it
    /// with `UserStore.recordPasskeySignIn` (or `consumePasskeyChallenge` when it refuses the assertion).
    func passkeyChallenge(hash: [UInt8], projectID: String, now: Date) async throws -> PasskeyChallenge?
}
