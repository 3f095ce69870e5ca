import Foundation
import HearthCore

/// An operator of the console (`/console/` on the operator listener): not an end user of any project.
/// Secrets are stored as hashes (setup token, recovery codes, sessions) or sealed (the TOTP secret, as MFA secrets).
public struct ConsoleAdmin: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        /// Sees and changes everything the console shows.
        case admin
        /// Sees what the console shows but its secrets, and changes nothing.
        case viewer
    }

    /// Lower-cased; the admin's identity.
    public var email: String
    public var role: Role
    /// PHC scrypt string; nil until the setup page sets it.
    public var passwordHash: String?
    /// The TOTP secret as the engine stores MFA secrets (sealed when a key-encryption key is configured).
    public var totpSecret: String?
    /// SHA-256 (hex) of each unused recovery code.
    public var recoveryCodeHashes: [String]
    /// SHA-256 (hex) of the one-time setup token, while a setup is pending.
    public var setupTokenHash: String?
    public var setupExpiresAt: Date?
    public var disabled: Bool
    /// Wrong passwords or codes since the last success (the lockout's backoff grows with it).
    public var failedAttempts: Int
    public var lockedUntil: Date?
    /// The TOTP step last accepted: a code is good once.
    public var lastTOTPStep: Int64?
    public var createdAt: Date

    public init(
        email: String, role: Role, passwordHash: String? = nil, totpSecret: String? = nil,
        recoveryCodeHashes: [String] = [], setupTokenHash: String? = nil, setupExpiresAt: Date? = nil,
        disabled: Bool = false, failedAttempts: Int = 0, lockedUntil: Date? = nil, lastTOTPStep: Int64? = nil,
        createdAt: Date
    ) {
        self.email = email
        self.role = role
        self.passwordHash = passwordHash
        self.totpSecret = totpSecret
        self.recoveryCodeHashes = recoveryCodeHashes
        self.setupTokenHash = setupTokenHash
        self.setupExpiresAt = setupExpiresAt
        self.disabled = disabled
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.lastTOTPStep = lastTOTPStep
        self.createdAt = createdAt
    }
}

/// A signed-in console admin's browser session, known by the hash of its cookie.
public struct ConsoleSession: Sendable, Equatable {
    /// SHA-256 (hex) of the cookie's value.
    public var tokenHash: String
    public var email: String
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(tokenHash: String, email: String, createdAt: Date, lastSeenAt: Date) {
        self.tokenHash = tokenHash
        self.email = email
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// Console admins and their sessions.
public protocol ConsoleAdminStore: Sendable {
    func consoleAdmin(email: String) async throws -> ConsoleAdmin?

    /// The admin whose pending setup token hashes to `setupTokenHash`.
    func consoleAdmin(setupTokenHash: String) async throws -> ConsoleAdmin?

    /// Every console admin, by e-mail.
    func consoleAdmins() async throws -> [ConsoleAdmin]

    /// Inserts a new admin; returns false when one with that e-mail exists.
    func insertConsoleAdmin(_ admin: ConsoleAdmin) async throws -> Bool

    /// Replaces the stored admin with `admin.email`; with `expectingSetupTokenHash`, only while that setup token is
    /// still the pending one (so a setup link is used once, however many browsers post it). Returns whether it did.
    func updateConsoleAdmin(_ admin: ConsoleAdmin, expectingSetupTokenHash: String?) async throws -> Bool

    /// Counts a failed sign-in atomically and returns the new count (0 for an unknown admin).
    func recordConsoleSignInFailure(email: String, lockedUntil: @Sendable (Int) -> Date?) async throws -> Int

    /// Accepts a TOTP step only if it is later than the last accepted one (atomically); returns whether it was.
    func acceptConsoleTOTPStep(email: String, step: Int64) async throws -> Bool

    /// Removes one recovery code's hash atomically; returns whether it was there (each code is good once).
    func spendConsoleRecoveryCode(email: String, codeHash: String) async throws -> Bool

    func insertConsoleSession(_ session: ConsoleSession) async throws

    func consoleSession(tokenHash: String) async throws -> ConsoleSession?

    func touchConsoleSession(tokenHash: String, at: Date) async throws

    func deleteConsoleSession(tokenHash: String) async throws

    /// Ends every session of an admin (disabled, reset, signed out everywhere).
    func deleteConsoleSessions(email: String) async throws
}
