import Crypto
import Foundation
import HearthCore
import HearthStore
import HearthTokens

/// The console's operators: created by the CLI with a one-time setup link, which sets a password and enrols TOTP;
/// signed in with e-mail, password and then a code; locked out with a growing backoff after repeated failures.
/// Every rule of console sign-in lives here; HearthConsole only renders and forwards.
extension AuthEngine {
    /// How long a setup link opens the setup page.
    public static let consoleSetupLifetime: TimeInterval = 15 * 60
    /// A console session ends after this long without a request…
    public static let consoleSessionIdle: TimeInterval = 30 * 60
    /// …and this long after its sign-in, whatever its use.
    public static let consoleSessionAbsolute: TimeInterval = 12 * 3600
    /// The password step's proof, carried to the code step.
    static let consolePendingLifetime: TimeInterval = 5 * 60
    static let consoleRecoveryCodeCount = 10
    /// Failures allowed before each further one locks the admin out, for twice as long as the previous lock.
    static let consoleFreeFailures = 4

    /// A lock of 30 s after the fifth failure in a row, doubling with each further one, at most an hour.
    static func consoleLockout(failures: Int, now: Date) -> Date? {
        guard failures > consoleFreeFailures else { return nil }
        let seconds = min(3600, 30 * pow(2, Double(min(failures - consoleFreeFailures - 1, 16))))
        return now.addingTimeInterval(seconds)
    }

    static func consoleHash(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// An admin's e-mail as the console keys it.
    static func consoleEmail(_ email: String) throws(AuthError) -> String { try EmailAddress.normalize(email) }

    // MARK: The CLI

    /// Creates an admin awaiting setup; returns the setup link's token (shown once, stored hashed).
    public func createConsoleAdmin(email: String, role: ConsoleAdmin.Role) async throws -> String {
        let now = clock.now()
        let token = random.token(bytes: 32)
        let admin = ConsoleAdmin(
            email: try Self.consoleEmail(email), role: role, setupTokenHash: Self.consoleHash(token),
            setupExpiresAt: now.addingTimeInterval(Self.consoleSetupLifetime), createdAt: now)
        try await audited("consoleAdmin.create", scope: projects.defaultProjectID) { change in
            change.after = ["email": .string(admin.email), "role": .string(role.rawValue)]
            guard try await store.insertConsoleAdmin(admin) else { throw AuthError(.emailExists) }
        }
        logger.notice("console admin created", metadata: ["email": "\(admin.email)", "role": "\(role.rawValue)"])
        return token
    }

    /// Forgets an admin's password, TOTP secret, recovery codes and sessions, and issues a new setup link (its
    /// token is returned). A reset admin is enabled again.
    public func resetConsoleAdmin(email: String) async throws -> String {
        guard var admin = try await store.consoleAdmin(email: try Self.consoleEmail(email)) else {
            throw AuthError(.userNotFound)
        }
        let token = random.token(bytes: 32)
        admin.passwordHash = nil
        admin.totpSecret = nil
        admin.recoveryCodeHashes = []
        admin.setupTokenHash = Self.consoleHash(token)
        admin.setupExpiresAt = clock.now().addingTimeInterval(Self.consoleSetupLifetime)
        admin.disabled = false
        admin.failedAttempts = 0
        admin.lockedUntil = nil
        try await audited("consoleAdmin.reset", scope: projects.defaultProjectID) { [admin] change in
            change.after = ["email": .string(admin.email)]
            _ = try await store.updateConsoleAdmin(admin, expectingSetupTokenHash: nil)
            try await store.deleteConsoleSessions(email: admin.email)
        }
        logger.notice("console admin reset", metadata: ["email": "\(admin.email)"])
        return token
    }

    /// Disables an admin (or enables one again) and ends their sessions.
    public func setConsoleAdminDisabled(email: String, disabled: Bool) async throws {
        guard var admin = try await store.consoleAdmin(email: try Self.consoleEmail(email)) else {
            throw AuthError(.userNotFound)
        }
        admin.disabled = disabled
        try await audited(disabled ? "consoleAdmin.disable" : "consoleAdmin.enable", scope: projects.defaultProjectID) {
            [admin] change in
            change.after = ["email": .string(admin.email), "disabled": .bool(disabled)]
            _ = try await store.updateConsoleAdmin(admin, expectingSetupTokenHash: nil)
            if disabled { try await store.deleteConsoleSessions(email: admin.email) }
        }
        logger.notice("console admin \(disabled ? "disabled" : "enabled")", metadata: ["email": "\(admin.email)"])
    }

    public func consoleAdmins() async throws -> [ConsoleAdmin] { try await store.consoleAdmins() }

    // MARK: Setup

    /// The admin a setup link belongs to while it is pending and unexpired.
    func pendingSetup(token: String) async throws -> ConsoleAdmin {
        guard !token.isEmpty, let admin = try await store.consoleAdmin(setupTokenHash: Self.consoleHash(token)),
            let expiry = admin.setupExpiresAt, expiry > clock.now(), !admin.disabled
        else { throw AuthError(.invalidOobCode, "The setup link is invalid, used or expired.") }
        return admin
    }

    /// Opens a setup link: the admin's e-mail and the TOTP secret to enrol (base32, as authenticator apps take it),
    /// made on the first visit and kept sealed until the setup completes.
    public func beginConsoleSetup(token: String) async throws -> (email: String, totpSecret: String, uri: String) {
        var admin = try await pendingSetup(token: token)
        if admin.totpSecret == nil {
            admin.totpSecret = try sealTOTPSecret(random.bytes(TOTP.secretLength))
            _ = try await store.updateConsoleAdmin(admin, expectingSetupTokenHash: admin.setupTokenHash)
            admin = try await pendingSetup(token: token)
        }
        let secret = Base32.encode(try openTOTPSecret(admin.totpSecret ?? ""))
        return (admin.email, secret, TOTP.uri(secret: secret, accountName: admin.email, issuer: "Hearth"))
    }

    /// Completes a setup: the password (the default project's policy, at least 12 characters) and a code from the
    /// enrolled secret. Returns the recovery codes, shown once. The link is spent by the same write.
    public func completeConsoleSetup(token: String, password: String, code: String) async throws -> [String] {
        var admin = try await pendingSetup(token: token)
        guard password.count >= 12 else {
            throw AuthError(.weakPassword, "A console password has at least 12 characters.")
        }
        guard let sealed = admin.totpSecret,
            let step = TOTP.matchingStep(
                code: code.trimmingCharacters(in: .whitespaces), secret: try openTOTPSecret(sealed), now: clock.now(),
                adjacentIntervals: 1)
        else { throw AuthError(.invalidCode, "The code does not match the secret shown.") }
        let expected = admin.setupTokenHash
        let codes = (0..<Self.consoleRecoveryCodeCount).map { _ in random.alphanumeric(12).lowercased() }
        admin.passwordHash = try await hasher.hash(password).encoded
        admin.recoveryCodeHashes = codes.map(Self.consoleHash)
        admin.setupTokenHash = nil
        admin.setupExpiresAt = nil
        admin.failedAttempts = 0
        admin.lockedUntil = nil
        admin.lastTOTPStep = step
        guard try await store.updateConsoleAdmin(admin, expectingSetupTokenHash: expected) else {
            throw AuthError(.invalidOobCode, "The setup link is invalid, used or expired.")
        }
        logger.notice("console admin set up", metadata: ["email": "\(admin.email)"])
        return codes
    }

    // MARK: Sign-in

    /// The password step. Returns a proof for the code step, bound to the browser's `binding` (its form cookie).
    /// Unknown e-mails, wrong passwords, admins awaiting setup and disabled admins all get INVALID_LOGIN_CREDENTIALS
    /// after the same password hashing work; a locked-out admin gets TOO_MANY_ATTEMPTS_TRY_LATER.
    public func consolePasswordStep(email: String, password: String, binding: String) async throws -> String {
        let email = (try? Self.consoleEmail(email)) ?? ""
        let admin = email.isEmpty ? nil : try await store.consoleAdmin(email: email)
        try checkNotLockedOut(admin)
        let stored = admin?.passwordHash.flatMap(PasswordHash.init(encoded:))
        guard try await hasher.verify(password, against: stored), let admin, !admin.disabled else {
            try await recordConsoleFailure(email)
            throw AuthError(.invalidLoginCredentials)
        }
        return try await FormTokens(keyRing: idTokens.keyRing, purpose: "console-code", lifetime: Self.consolePendingLifetime)
            .issue(binding: "\(admin.email)\n\(binding)", now: clock.now())
    }

    /// The code step: a TOTP code (each accepted once) or an unused recovery code (spent). Returns the new
    /// session's cookie value and the admin.
    public func consoleCodeStep(email: String, proof: String, code: String, binding: String) async throws
        -> (cookie: String, admin: ConsoleAdmin)
    {
        let email = (try? Self.consoleEmail(email)) ?? ""
        let pending = FormTokens(
            keyRing: idTokens.keyRing, purpose: "console-code", lifetime: Self.consolePendingLifetime)
        guard await pending.check(proof, binding: "\(email)\n\(binding)", now: clock.now()),
            let admin = try await store.consoleAdmin(email: email), !admin.disabled
        else { throw AuthError(.invalidMFAPendingCredential, "Sign in again.") }
        try await verifyConsoleCode(admin, code)
        let cookie = random.token(bytes: 32)
        let now = clock.now()
        try await store.insertConsoleSession(
            ConsoleSession(tokenHash: Self.consoleHash(cookie), email: admin.email, createdAt: now, lastSeenAt: now))
        logger.notice("console sign-in", metadata: ["email": "\(admin.email)"])
        return (cookie, admin)
    }

    /// Checks a code an admin re-enters before a sensitive change (deleting a user, revoking all sessions, …).
    public func confirmConsoleCode(email: String, code: String) async throws {
        guard let admin = try await store.consoleAdmin(email: email), !admin.disabled else {
            throw AuthError(.invalidCode)
        }
        try await verifyConsoleCode(admin, code)
    }

    func verifyConsoleCode(_ admin: ConsoleAdmin, _ code: String) async throws {
        try checkNotLockedOut(admin)
        let code = code.filter { !$0.isWhitespace }
        let secret = try admin.totpSecret.map(openTOTPSecret)
        if code.count == TOTP.digits, let secret,
            let step = TOTP.matchingStep(code: code, secret: secret, now: clock.now(), adjacentIntervals: 1),
            try await store.acceptConsoleTOTPStep(email: admin.email, step: step)
        {
            try await clearConsoleFailures(admin.email)
            return
        }
        let hash = Self.consoleHash(code.lowercased())
        // Each recovery code is good once: the store removes it atomically, so two uses cannot both succeed.
        if code.count != TOTP.digits, admin.recoveryCodeHashes.contains(hash),
            try await store.spendConsoleRecoveryCode(email: admin.email, codeHash: hash)
        {
            try await clearConsoleFailures(admin.email)
            logger.notice("console recovery code used", metadata: ["email": "\(admin.email)"])
            return
        }
        try await recordConsoleFailure(admin.email)
        throw AuthError(.invalidCode)
    }

    func checkNotLockedOut(_ admin: ConsoleAdmin?) throws {
        if let until = admin?.lockedUntil, until > clock.now() {
            throw AuthError(.tooManyAttemptsTryLater, "Too many failed attempts; try again later.")
        }
    }

    func recordConsoleFailure(_ email: String) async throws {
        guard !email.isEmpty else { return }
        let now = clock.now()
        let failures = try await store.recordConsoleSignInFailure(email: email) { Self.consoleLockout(failures: $0, now: now) }
        if failures > 0 { logger.notice("console sign-in failed", metadata: ["email": "\(email)", "failures": "\(failures)"]) }
    }

    func clearConsoleFailures(_ email: String) async throws {
        guard var admin = try await store.consoleAdmin(email: email), admin.failedAttempts > 0 else { return }
        admin.failedAttempts = 0
        admin.lockedUntil = nil
        _ = try await store.updateConsoleAdmin(admin, expectingSetupTokenHash: nil)
    }

    // MARK: Sessions

    /// The signed-in admin of a session cookie, or nil when the session is unknown, idle too long, too old, or its
    /// admin is disabled (the session is then forgotten).
    public func consoleSession(cookie: String) async throws -> ConsoleAdmin? {
        guard !cookie.isEmpty else { return nil }
        let hash = Self.consoleHash(cookie)
        guard let session = try await store.consoleSession(tokenHash: hash) else { return nil }
        let now = clock.now()
        guard now.timeIntervalSince(session.lastSeenAt) < Self.consoleSessionIdle,
            now.timeIntervalSince(session.createdAt) < Self.consoleSessionAbsolute,
            let admin = try await store.consoleAdmin(email: session.email), !admin.disabled,
            admin.setupTokenHash == nil
        else {
            try await store.deleteConsoleSession(tokenHash: hash)
            return nil
        }
        // One write a minute at most: the idle clock needs no finer grain.
        if now.timeIntervalSince(session.lastSeenAt) > 60 { try await store.touchConsoleSession(tokenHash: hash, at: now) }
        return admin
    }

    public func consoleSignOut(cookie: String) async throws {
        try await store.deleteConsoleSession(tokenHash: Self.consoleHash(cookie))
    }
}
