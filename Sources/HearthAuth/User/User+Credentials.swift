import Foundation

extension User {
    /// Adds a sign-in method to this account (turning an anonymous account into a permanent one).
    ///
    /// When the credential already belongs to another account the error is `credentialAlreadyInUse`,
    /// with a credential for that account under `AuthErrorUserInfoUpdatedCredentialKey`: sign in with
    /// it to switch to that account.
    public func link(with credential: AuthCredential) async throws -> AuthDataResult {
        if record.providers.contains(where: { $0.providerID == credential.provider }) {
            throw AuthErrorCode.providerAlreadyLinked.error()
        }
        let idToken = try await getIDToken()
        let r: JSON
        var info = AdditionalUserInfo(providerID: credential.provider, isNewUser: false)
        var returned: OAuthCredential?
        do {
            switch credential {
            case let email as EmailAuthCredential where email.link != nil:
                r = try await auth.client.call(
                    .v1("accounts:signInWithEmailLink"),
                    [
                        "email": .string(email.email), "oobCode": .string(email.linkCode ?? ""),
                        "idToken": .string(idToken),
                    ])
            case let email as EmailAuthCredential:
                r = try await auth.client.call(
                    .v1("accounts:signUp"),
                    [
                        "email": .string(email.email), "password": .string(email.password ?? ""),
                        "idToken": .string(idToken), "returnSecureToken": true,
                    ])
            case let phone as PhoneAuthCredential:
                r = try await auth.phoneCall(phone, idToken: idToken, operation: "LINK")
            case let oauth as OAuthCredential:
                r = try await auth.idpCall(oauth, idToken: idToken, autoCreate: true)
                info = AdditionalUserInfo(idpResponse: r, providerID: oauth.provider)
                returned = OAuthCredential(idpResponse: r)
            case let gameCenter as GameCenterAuthCredential:
                r = try await auth.client.call(
                    .v1("accounts:signInWithGameCenter"), gameCenter.body(idToken: idToken))
            default:
                throw AuthErrorCode.invalidCredential.error(message: "Unsupported credential \(credential.provider).")
            }
        } catch {
            endSessionIfOver(error)
            throw error
        }
        if let tokens = TokenSet(identityToolkit: r) { apply(tokens) }
        try await reload()
        return AuthDataResult(user: self, additionalUserInfo: info, credential: returned)
    }

    /// Replaces the account's phone number with the one the credential proves (an SMS code sent by
    /// `PhoneAuthProvider.verifyPhoneNumber`). A number that belongs to another account fails with
    /// `credentialAlreadyInUse`.
    public func updatePhoneNumber(_ credential: PhoneAuthCredential) async throws {
        let idToken = try await getIDToken()
        let r: JSON
        do {
            r = try await auth.phoneCall(credential, idToken: idToken, operation: "UPDATE")
        } catch {
            endSessionIfOver(error)
            throw error
        }
        if let tokens = TokenSet(identityToolkit: r) { apply(tokens) }
        try await reload()
    }

    /// Removes a sign-in method from this account.
    @discardableResult
    public func unlink(fromProvider provider: String) async throws -> User {
        guard record.providers.contains(where: { $0.providerID == provider }) else {
            throw AuthErrorCode.noSuchProvider.error()
        }
        try await updateAccount(["deleteProvider": [.string(provider)]])
        return self
    }

    /// Proves again that the user is who they say, for operations that need a recent sign-in
    /// (delete, password or e-mail change). The credential must belong to this user (`userMismatch`).
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        let client = auth.client
        let r: JSON
        var info = AdditionalUserInfo(providerID: credential.provider, isNewUser: false)
        do {
            switch credential {
            case let email as EmailAuthCredential where email.link != nil:
                r = try await client.call(
                    .v1("accounts:signInWithEmailLink"),
                    ["email": .string(email.email), "oobCode": .string(email.linkCode ?? "")])
            case let email as EmailAuthCredential:
                r = try await client.call(
                    .v1("accounts:signInWithPassword"),
                    [
                        "email": .string(email.email), "password": .string(email.password ?? ""),
                        "returnSecureToken": true,
                    ])
            case let phone as PhoneAuthCredential:
                r = try await auth.phoneCall(phone, idToken: nil, operation: "REAUTH")
            case let oauth as OAuthCredential:
                r = try await auth.idpCall(oauth, idToken: nil, autoCreate: false)
                info = AdditionalUserInfo(idpResponse: r, providerID: oauth.provider)
            case let gameCenter as GameCenterAuthCredential:
                r = try await client.call(.v1("accounts:signInWithGameCenter"), gameCenter.body(idToken: nil))
            default:
                throw AuthErrorCode.invalidCredential.error(message: "Unsupported credential \(credential.provider).")
            }
        } catch let error as NSError where error.authErrorCode == .userNotFound {
            // The credential names no account at all, so it cannot be this user's.
            throw AuthErrorCode.userMismatch.error(underlying: error)
        }
        try auth.throwIfSecondFactorRequired(r)
        guard r["localId"]?.string == uid, let tokens = TokenSet(identityToolkit: r) else {
            throw AuthErrorCode.userMismatch.error()
        }
        apply(tokens)
        return AuthDataResult(user: self, additionalUserInfo: info, credential: OAuthCredential(idpResponse: r))
    }
}
