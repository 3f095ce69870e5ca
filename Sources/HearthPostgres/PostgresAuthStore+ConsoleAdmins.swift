import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `ConsoleAdminStore` on PostgreSQL: console admins and their browser sessions.
extension PostgresAuthStore {
    static let consoleAdminColumns = """
        email, role, password_hash, totp_secret, recovery_codes, setup_token_hash, setup_expires_at, disabled,
        failed_attempts, locked_until, last_totp_step, created_at
        """

    static func consoleAdmin(from row: PostgresRow) throws -> ConsoleAdmin {
        let row = row.makeRandomAccess()
        let codes = try row["recovery_codes"].decode(String.self)
        return ConsoleAdmin(
            email: try row["email"].decode(String.self),
            role: ConsoleAdmin.Role(rawValue: try row["role"].decode(String.self)) ?? .viewer,
            passwordHash: try row["password_hash"].decode(String?.self),
            totpSecret: try row["totp_secret"].decode(String?.self),
            recoveryCodeHashes: codes.split(separator: " ").map(String.init),
            setupTokenHash: try row["setup_token_hash"].decode(String?.self),
            setupExpiresAt: try row["setup_expires_at"].decode(Int64?.self).map(Date.init(millisecondsSince1970:)),
            disabled: try row["disabled"].decode(Bool.self),
            failedAttempts: Int(try row["failed_attempts"].decode(Int32.self)),
            lockedUntil: try row["locked_until"].decode(Int64?.self).map(Date.init(millisecondsSince1970:)),
            lastTOTPStep: try row["last_totp_step"].decode(Int64?.self),
            createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)))
    }

    static func bindings(_ a: ConsoleAdmin) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(a.email)
        binds.append(a.role.rawValue)
        binds.append(a.passwordHash)
        binds.append(a.totpSecret)
        binds.append(a.recoveryCodeHashes.joined(separator: " "))
        binds.append(a.setupTokenHash)
        binds.append(a.setupExpiresAt?.millisecondsSince1970)
        binds.append(a.disabled)
        binds.append(Int32(clamping: a.failedAttempts))
        binds.append(a.lockedUntil?.millisecondsSince1970)
        binds.append(a.lastTOTPStep)
        binds.append(a.createdAt.millisecondsSince1970)
        return binds
    }

    public func consoleAdmin(email: String) async throws -> ConsoleAdmin? {
        try await query("SELECT \(unescaped: Self.consoleAdminColumns) FROM console_admins WHERE email = \(email)")
            .first.map(Self.consoleAdmin(from:))
    }

    public func consoleAdmin(setupTokenHash: String) async throws -> ConsoleAdmin? {
        try await query(
            "SELECT \(unescaped: Self.consoleAdminColumns) FROM console_admins WHERE setup_token_hash = \(setupTokenHash)"
        ).first.map(Self.consoleAdmin(from:))
    }

    public func consoleAdmins() async throws -> [ConsoleAdmin] {
        try await query("SELECT \(unescaped: Self.consoleAdminColumns) FROM console_admins ORDER BY email COLLATE \"C\"")
            .map(Self.consoleAdmin(from:))
    }

    public func insertConsoleAdmin(_ admin: ConsoleAdmin) async throws -> Bool {
        let sql = """
            INSERT INTO console_admins (\(Self.consoleAdminColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
            ON CONFLICT (email) DO NOTHING RETURNING email
            """
        return try await !query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(admin))).isEmpty
    }

    public func updateConsoleAdmin(_ admin: ConsoleAdmin, expectingSetupTokenHash: String?) async throws -> Bool {
        var binds = Self.bindings(admin)
        var sql = """
            UPDATE console_admins SET email = $1, role = $2, password_hash = $3, totp_secret = $4, recovery_codes = $5,
            setup_token_hash = $6, setup_expires_at = $7, disabled = $8, failed_attempts = $9, locked_until = $10,
            last_totp_step = $11, created_at = $12 WHERE email = $1
            """
        if let expected = expectingSetupTokenHash {
            binds.append(expected)
            sql += " AND setup_token_hash = $13"
        }
        sql += " RETURNING email"
        return try await !query(PostgresQuery(unsafeSQL: sql, binds: binds)).isEmpty
    }

    public func recordConsoleSignInFailure(email: String, lockedUntil: @Sendable (Int) -> Date?) async throws -> Int {
        guard
            let count = try await query(
                """
                UPDATE console_admins SET failed_attempts = failed_attempts + 1 WHERE email = \(email)
                RETURNING failed_attempts
                """
            ).first?.decode(Int32.self)
        else { return 0 }
        if let until = lockedUntil(Int(count)) {
            try await query(
                "UPDATE console_admins SET locked_until = \(until.millisecondsSince1970) WHERE email = \(email)")
        }
        return Int(count)
    }

    public func acceptConsoleTOTPStep(email: String, step: Int64) async throws -> Bool {
        try await !query(
            """
            UPDATE console_admins SET last_totp_step = \(step)
            WHERE email = \(email) AND (last_totp_step IS NULL OR last_totp_step < \(step)) RETURNING email
            """
        ).isEmpty
    }

    public func spendConsoleRecoveryCode(email: String, codeHash: String) async throws -> Bool {
        try await !query(
            """
            UPDATE console_admins
            SET recovery_codes = TRIM(REPLACE(' ' || recovery_codes || ' ', ' ' || \(codeHash) || ' ', ' '))
            WHERE email = \(email) AND ' ' || recovery_codes || ' ' LIKE '% ' || \(codeHash) || ' %'
            RETURNING email
            """
        ).isEmpty
    }

    public func insertConsoleSession(_ session: ConsoleSession) async throws {
        try await query(
            """
            INSERT INTO console_sessions (token_hash, email, created_at, last_seen_at)
            VALUES (\(session.tokenHash), \(session.email), \(session.createdAt.millisecondsSince1970),
                    \(session.lastSeenAt.millisecondsSince1970))
            """)
    }

    public func consoleSession(tokenHash: String) async throws -> ConsoleSession? {
        try await query(
            "SELECT token_hash, email, created_at, last_seen_at FROM console_sessions WHERE token_hash = \(tokenHash)"
        ).first.map { row in
            let row = row.makeRandomAccess()
            return ConsoleSession(
                tokenHash: try row["token_hash"].decode(String.self), email: try row["email"].decode(String.self),
                createdAt: Date(millisecondsSince1970: try row["created_at"].decode(Int64.self)),
                lastSeenAt: Date(millisecondsSince1970: try row["last_seen_at"].decode(Int64.self)))
        }
    }

    public func touchConsoleSession(tokenHash: String, at: Date) async throws {
        try await query(
            "UPDATE console_sessions SET last_seen_at = \(at.millisecondsSince1970) WHERE token_hash = \(tokenHash)")
    }

    public func deleteConsoleSession(tokenHash: String) async throws {
        try await query("DELETE FROM console_sessions WHERE token_hash = \(tokenHash)")
    }

    public func deleteConsoleSessions(email: String) async throws {
        try await query("DELETE FROM console_sessions WHERE email = \(email)")
    }
}
