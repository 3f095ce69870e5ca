import Foundation
import GRDB
import HearthCore
import HearthStore

/// `ConsoleAdminStore` on SQLite: console admins and their browser sessions.
extension SQLiteAuthStore {
    static let consoleAdminColumns = """
        email, role, password_hash, totp_secret, recovery_codes, setup_token_hash, setup_expires_at, disabled,
        failed_attempts, locked_until, last_totp_step, created_at
        """

    static func consoleAdmin(from row: Row) -> ConsoleAdmin {
        let codes: String = row["recovery_codes"]
        return ConsoleAdmin(
            email: row["email"], role: ConsoleAdmin.Role(rawValue: row["role"]) ?? .viewer,
            passwordHash: row["password_hash"], totpSecret: row["totp_secret"],
            recoveryCodeHashes: codes.split(separator: " ").map(String.init), setupTokenHash: row["setup_token_hash"],
            setupExpiresAt: date(row["setup_expires_at"]), disabled: row["disabled"],
            failedAttempts: row["failed_attempts"], lockedUntil: date(row["locked_until"]),
            lastTOTPStep: row["last_totp_step"], createdAt: Date(millisecondsSince1970: row["created_at"]))
    }

    static func bindings(_ a: ConsoleAdmin) -> StatementArguments {
        [
            a.email, a.role.rawValue, a.passwordHash, a.totpSecret, a.recoveryCodeHashes.joined(separator: " "),
            a.setupTokenHash, a.setupExpiresAt?.millisecondsSince1970, a.disabled, a.failedAttempts,
            a.lockedUntil?.millisecondsSince1970, a.lastTOTPStep, a.createdAt.millisecondsSince1970,
        ]
    }

    public func consoleAdmin(email: String) async throws -> ConsoleAdmin? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.consoleAdminColumns) FROM console_admins WHERE email = ?", arguments: [email]
            ).map(Self.consoleAdmin(from:))
        }
    }

    public func consoleAdmin(setupTokenHash: String) async throws -> ConsoleAdmin? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.consoleAdminColumns) FROM console_admins WHERE setup_token_hash = ?",
                arguments: [setupTokenHash]
            ).map(Self.consoleAdmin(from:))
        }
    }

    public func consoleAdmins() async throws -> [ConsoleAdmin] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.consoleAdminColumns) FROM console_admins ORDER BY email")
                .map(Self.consoleAdmin(from:))
        }
    }

    public func insertConsoleAdmin(_ admin: ConsoleAdmin) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO console_admins (\(Self.consoleAdminColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (email) DO NOTHING
                    """, arguments: Self.bindings(admin))
            return db.changesCount > 0
        }
    }

    public func updateConsoleAdmin(_ admin: ConsoleAdmin, expectingSetupTokenHash: String?) async throws -> Bool {
        try await pool.write { db in
            var arguments = Self.bindings(admin)
            _ = arguments.append(contentsOf: [admin.email])
            var sql = """
                UPDATE console_admins SET email = ?, role = ?, password_hash = ?, totp_secret = ?, recovery_codes = ?,
                setup_token_hash = ?, setup_expires_at = ?, disabled = ?, failed_attempts = ?, locked_until = ?,
                last_totp_step = ?, created_at = ? WHERE email = ?
                """
            if let expected = expectingSetupTokenHash {
                sql += " AND setup_token_hash = ?"
                _ = arguments.append(contentsOf: [expected])
            }
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount > 0
        }
    }

    public func recordConsoleSignInFailure(email: String, lockedUntil: @Sendable (Int) -> Date?) async throws -> Int {
        try await pool.write { db in
            guard
                let count = try Int.fetchOne(
                    db,
                    sql: "UPDATE console_admins SET failed_attempts = failed_attempts + 1 WHERE email = ? RETURNING failed_attempts",
                    arguments: [email])
            else { return 0 }
            if let until = lockedUntil(count) {
                try db.execute(
                    sql: "UPDATE console_admins SET locked_until = ? WHERE email = ?",
                    arguments: [until.millisecondsSince1970, email])
            }
            return count
        }
    }

    public func acceptConsoleTOTPStep(email: String, step: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE console_admins SET last_totp_step = ?
                    WHERE email = ? AND (last_totp_step IS NULL OR last_totp_step < ?)
                    """, arguments: [step, email, step])
            return db.changesCount > 0
        }
    }

    public func spendConsoleRecoveryCode(email: String, codeHash: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE console_admins
                    SET recovery_codes = TRIM(REPLACE(' ' || recovery_codes || ' ', ' ' || ? || ' ', ' '))
                    WHERE email = ? AND ' ' || recovery_codes || ' ' LIKE '% ' || ? || ' %'
                    """, arguments: [codeHash, email, codeHash])
            return db.changesCount > 0
        }
    }

    public func insertConsoleSession(_ session: ConsoleSession) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO console_sessions (token_hash, email, created_at, last_seen_at) VALUES (?, ?, ?, ?)",
                arguments: [
                    session.tokenHash, session.email, session.createdAt.millisecondsSince1970,
                    session.lastSeenAt.millisecondsSince1970,
                ])
        }
    }

    public func consoleSession(tokenHash: String) async throws -> ConsoleSession? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT token_hash, email, created_at, last_seen_at FROM console_sessions WHERE token_hash = ?",
                arguments: [tokenHash]
            ).map { row in
                ConsoleSession(
                    tokenHash: row["token_hash"], email: row["email"],
                    createdAt: Date(millisecondsSince1970: row["created_at"]),
                    lastSeenAt: Date(millisecondsSince1970: row["last_seen_at"]))
            }
        }
    }

    public func touchConsoleSession(tokenHash: String, at: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE console_sessions SET last_seen_at = ? WHERE token_hash = ?",
                arguments: [at.millisecondsSince1970, tokenHash])
        }
    }

    public func deleteConsoleSession(tokenHash: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    public func deleteConsoleSessions(email: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE email = ?", arguments: [email])
        }
    }
}
