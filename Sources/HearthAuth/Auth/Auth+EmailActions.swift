import Foundation

/// E-mail action links: password resets, address verification and sign-in links (`accounts:sendOobCode`,
/// `accounts:resetPassword`, `accounts:update` with an `oobCode`, `accounts:signInWithEmailLink`), as FirebaseAuth
/// names them. The server sends the e-mail (SMTP or a webhook; the development outbox with `--emulator`); the
/// link's `oobCode` query parameter is what the methods below take.
extension Auth {
    /// Sends a password-reset link to `email`. Under the project's enumeration protection an unknown address
    /// succeeds too, so the answer reveals nothing.
    public func sendPasswordReset(withEmail email: String) async throws {
        _ = try await client.call(
            .v1("accounts:sendOobCode"), ["requestType": "PASSWORD_RESET", "email": .string(email)])
    }

    /// The same, with a continue URL and the app that may open the link.
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        _ = try await client.call(
            .v1("accounts:sendOobCode"),
            actionCodeSettings.requestFields.merging(
                ["requestType": "PASSWORD_RESET", "email": .string(email)], uniquingKeysWith: { $1 }))
    }

    /// Sends a sign-in link to `email`. `actionCodeSettings.handleCodeInApp` must be true and its `url` on an
    /// authorized domain; keep the address (the link does not say whose it is) for `signIn(withEmail:link:)`.
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        _ = try await client.call(
            .v1("accounts:sendOobCode"),
            actionCodeSettings.requestFields.merging(
                ["requestType": "EMAIL_SIGNIN", "email": .string(email)], uniquingKeysWith: { $1 }))
    }

    /// Whether `link` is an e-mail sign-in link (`mode=signIn` with an `oobCode`, possibly inside a deep link).
    public func isSignIn(withEmailLink link: String) -> Bool {
        let items = ActionCodeURL.queryItems(link)
        return items["mode"] == "signIn" && !(items["oobCode"] ?? "").isEmpty
    }

    /// Signs in with the link sent to `email`: the account with that address, or a new one; the address is
    /// verified either way. The link works once.
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        guard isSignIn(withEmailLink: link), let code = ActionCodeURL.queryItems(link)["oobCode"] else {
            throw AuthErrorCode.wrongPassword.error(message: "The link is not an e-mail sign-in link.")
        }
        let r = try await client.call(
            .v1("accounts:signInWithEmailLink"), ["email": .string(email), "oobCode": .string(code)])
        return try await completeSignIn(
            r, info: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: r["isNewUser"]?.bool ?? false))
    }

    /// What a code is for and whom it concerns, without using it.
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        let r = try await client.call(.v1("accounts:resetPassword"), ["oobCode": .string(code)])
        return ActionCodeInfo(
            operation: ActionCodeOperation(mode: r["requestType"]?.string), email: r["email"]?.string ?? "",
            newEmail: r["newEmail"]?.string)
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

    public func sendPasswordReset(
        withEmail email: String, actionCodeSettings: ActionCodeSettings,
        completion: (@MainActor @Sendable (Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings) }
    }

    public func sendSignInLink(
        toEmail email: String, actionCodeSettings: ActionCodeSettings,
        completion: (@MainActor @Sendable (Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings) }
    }

    public func signIn(
        withEmail email: String, link: String,
        completion: (@MainActor @Sendable (AuthDataResult?, Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.signIn(withEmail: email, link: link) }
    }

    public func checkActionCode(
        _ code: String, completion: @escaping @MainActor @Sendable (ActionCodeInfo?, Error?) -> Void
    ) {
        complete(completion) { try await self.checkActionCode(code) }
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

    /// Sends a verification link that continues at `actionCodeSettings.url`.
    public func sendEmailVerification(with actionCodeSettings: ActionCodeSettings) async throws {
        _ = try await authorizedCall(.v1("accounts:sendOobCode")) { idToken in
            actionCodeSettings.requestFields.merging(
                ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)], uniquingKeysWith: { $1 })
        }
    }

    public func sendEmailVerification(
        beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings
    ) async throws {
        _ = try await authorizedCall(.v1("accounts:sendOobCode")) { idToken in
            actionCodeSettings.requestFields.merging(
                ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": .string(email)],
                uniquingKeysWith: { $1 })
        }
    }

    public func sendEmailVerification(completion: (@MainActor @Sendable (Error?) -> Void)? = nil) {
        complete(completion) { try await self.sendEmailVerification() }
    }

    public func sendEmailVerification(
        with actionCodeSettings: ActionCodeSettings, completion: (@MainActor @Sendable (Error?) -> Void)? = nil
    ) {
        complete(completion) { try await self.sendEmailVerification(with: actionCodeSettings) }
    }

    public func sendEmailVerification(
        beforeUpdatingEmail email: String, actionCodeSettings: ActionCodeSettings? = nil,
        completion: (@MainActor @Sendable (Error?) -> Void)? = nil
    ) {
        complete(completion) {
            if let actionCodeSettings {
                try await self.sendEmailVerification(beforeUpdatingEmail: email, actionCodeSettings: actionCodeSettings)
            } else {
                try await self.sendEmailVerification(beforeUpdatingEmail: email)
            }
        }
    }
}
