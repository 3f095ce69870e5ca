import Foundation

/// E-mail action links: password resets and address verification (`accounts:sendOobCode`,
/// `accounts:resetPassword`, `accounts:update` with an `oobCode`), as FirebaseAuth names them.
/// The server sends the e-mail (or, without a mail server, keeps it in its development outbox); the link's
/// `oobCode` query parameter is what the methods below take.
extension Auth {
    /// Sends a password-reset link to `email`. Under the project's enumeration protection an unknown address
    /// succeeds too, so the answer reveals nothing.
    public func sendPasswordReset(withEmail email: String) async throws {
        _ = try await client.call(
            .v1("accounts:sendOobCode"), ["requestType": "PASSWORD_RESET", "email": .string(email)])
    }

    /// The e-mail address a password-reset code belongs to, without using the code up.
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let r = try await client.call(.v1("accounts:resetPassword"), ["oobCode": .string(code)])
        return r["email"]?.string ?? ""
    }

    /// Sets a new password with a reset code; the code works once, and every earlier session ends.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        _ = try await client.call(
            .v1("accounts:resetPassword"), ["oobCode": .string(code), "newPassword": .string(newPassword)])
    }

    /// Applies a verification code: confirms an address, or moves the account to the address it verifies
    /// (which, as a credential change, ends the account's sessions). As in FirebaseAuth, the current user is
    /// not reloaded: call `reload()` to see the change.
    public func applyActionCode(_ code: String) async throws {
        _ = try await client.call(.v1("accounts:update"), ["oobCode": .string(code)])
    }

    public func sendPasswordReset(withEmail email: String, completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.sendPasswordReset(withEmail: email) }
    }

    public func verifyPasswordResetCode(
        _ code: String, completion: @escaping @MainActor @Sendable (String?, Error?) -> Void
    ) {
        complete(completion) { try await self.verifyPasswordResetCode(code) }
    }

    public func confirmPasswordReset(
        withCode code: String, newPassword: String, completion: @escaping @MainActor @Sendable (Error?) -> Void
    ) {
        complete(completion) { try await self.confirmPasswordReset(withCode: code, newPassword: newPassword) }
    }

    public func applyActionCode(_ code: String, completion: @escaping @MainActor @Sendable (Error?) -> Void) {
        complete(completion) { try await self.applyActionCode(code) }
    }
}

extension User {
    /// Sends a link that confirms this user's e-mail address.
    public func sendEmailVerification() async throws {
        _ = try await authorizedCall(.v1("accounts:sendOobCode")) { idToken in
            ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)]
        }
    }

    /// Sends a link to `email`; following it moves the account to that address, verified. This is the way to
    /// change an address when the project protects against e-mail enumeration.
    public func sendEmailVerification(beforeUpdatingEmail email: String) async throws {
        _ = try await authorizedCall(.v1("accounts:sendOobCode")) { idToken in
            ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": .string(email)]
        }
    }

    public func sendEmailVerification(completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.sendEmailVerification() }
    }
}
