import Foundation

extension Auth {
    /// Signs in with an e-mail address and password.
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        let r = try await client.call(
            .v1("accounts:signInWithPassword"),
            ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        return try await completeSignIn(r, info: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: false))
    }

    /// Creates an e-mail/password account and signs it in.
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let r = try await client.call(
            .v1("accounts:signUp"), ["email": .string(email), "password": .string(password), "returnSecureToken": true])
        return try await completeSignIn(r, info: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: true))
    }

    /// Creates an anonymous account and signs it in; returns the current user if it already is anonymous.
    public func signInAnonymously() async throws -> AuthDataResult {
        if let user = currentUser, user.isAnonymous {
            return AuthDataResult(user: user, additionalUserInfo: AdditionalUserInfo(providerID: "", isNewUser: false))
        }
        let r = try await client.call(.v1("accounts:signUp"), ["returnSecureToken": true])
        return try await completeSignIn(
            r, info: AdditionalUserInfo(providerID: "", isNewUser: true), isAnonymous: true)
    }

    /// Signs in with a custom token your backend minted (for providers Hearth does not verify itself).
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        let r = try await client.call(
            .v1("accounts:signInWithCustomToken"), RequestBodies.customTokenSignIn(token: token))
        return try await completeSignIn(
            r, info: AdditionalUserInfo(providerID: "custom", isNewUser: r["isNewUser"]?.bool ?? false))
    }

    /// Signs in with any credential: e-mail, phone, Apple, Google, Facebook, generic OIDC.
    ///
    /// Throws `accountExistsWithDifferentCredential` (with the e-mail and a credential to link later
    /// in the error's userInfo) when the provider's e-mail belongs to an account that must confirm
    /// first, and `secondFactorRequired` with a `MultiFactorResolver` for multi-factor users.
    public func signIn(with credential: AuthCredential) async throws -> AuthDataResult {
        switch credential {
        case let email as EmailAuthCredential:
            if let link = email.link { return try await signIn(withEmail: email.email, link: link) }
            return try await signIn(withEmail: email.email, password: email.password ?? "")
        case let phone as PhoneAuthCredential:
            let r = try await phoneCall(phone, idToken: nil, operation: "SIGN_UP_OR_IN")
            return try await completeSignIn(
                r, info: AdditionalUserInfo(providerID: PhoneAuthProvider.id, isNewUser: r["isNewUser"]?.bool ?? false))
        case let oauth as OAuthCredential:
            let r = try await idpCall(oauth, idToken: nil, autoCreate: true)
            return try await completeSignIn(
                r, info: AdditionalUserInfo(idpResponse: r, providerID: oauth.provider),
                credential: OAuthCredential(idpResponse: r))
        case let gameCenter as GameCenterAuthCredential:
            let r = try await client.call(.v1("accounts:signInWithGameCenter"), gameCenter.body(idToken: nil))
            return try await completeSignIn(
                r, info: AdditionalUserInfo(providerID: gameCenter.provider, isNewUser: r["isNewUser"]?.bool ?? false))
        default:
            throw AuthErrorCode.invalidCredential.error(message: "Unsupported credential \(credential.provider).")
        }
    }

    /// The pre-2019 FirebaseAuth name of `signIn(with:)`.
    @available(*, deprecated, renamed: "signIn(with:)")
    public func signInAndRetrieveData(with credential: AuthCredential) async throws -> AuthDataResult {
        try await signIn(with: credential)
    }

    /// Revokes the current user's Apple tokens with the authorization code from a fresh Sign in with
    /// Apple, as App Store rules ask before an account is deleted.
    public func revokeToken(withAuthorizationCode authorizationCode: String) async throws {
        guard let user = currentUser else { throw AuthErrorCode.nullUser.error() }
        _ = try await user.authorizedCall(.v2("accounts:revokeToken")) { idToken in
            RequestBodies.appleTokenRevocation(authorizationCode: authorizationCode, idToken: idToken)
        }
    }

    /// The sign-in methods (`password`, `google.com`…) of the account with this e-mail. Empty when
    /// the project protects against e-mail enumeration.
    public func fetchSignInMethods(forEmail email: String) async throws -> [String] {
        let r = try await client.call(
            .v1("accounts:createAuthUri"), ["identifier": .string(email), "continueUri": "http://localhost"])
        return (r["signinMethods"]?.array ?? []).compactMap(\.string)
    }

    // MARK: Shared by sign-in, link and re-authentication

    /// Turns a sign-in answer into the signed-in current user: checks for a second-factor
    /// challenge, reads the account, persists it and tells listeners.
    func completeSignIn(
        _ r: JSON, info: AdditionalUserInfo, isAnonymous: Bool = false, credential: OAuthCredential? = nil
    ) async throws -> AuthDataResult {
        try throwIfSecondFactorRequired(r)
        let user = try await makeUser(r, isAnonymous: isAnonymous)
        try setCurrentUser(user)
        return AuthDataResult(user: user, additionalUserInfo: info, credential: credential)
    }

    func makeUser(_ r: JSON, isAnonymous: Bool) async throws -> User {
        guard let tokens = TokenSet(identityToolkit: r) else {
            throw AuthErrorCode.internalError.error(message: "The sign-in answer has no tokens.")
        }
        let account = try await lookup(idToken: tokens.idToken)
        return User(
            record: UserRecord(tokens: tokens, lookup: account, isAnonymous: isAnonymous, tenantID: tenantID),
            auth: self)
    }

    func lookup(idToken: String) async throws -> JSON {
        let r = try await client.call(.v1("accounts:lookup"), ["idToken": .string(idToken)])
        guard let account = r["users"]?.array?.first else {
            throw AuthErrorCode.userNotFound.error(userInfo: [AuthErrorUserInfoServerCodeKey: "USER_NOT_FOUND"])
        }
        return account
    }

    /// `accounts:signInWithIdp`, with Firebase's two in-band failures turned into errors that carry
    /// the credential to recover with.
    func idpCall(_ credential: OAuthCredential, idToken: String?, autoCreate: Bool) async throws -> JSON {
        let r = try await client.call(
            .v1("accounts:signInWithIdp"),
            IdPSignInRequest.body(for: credential, idToken: idToken, autoCreate: autoCreate))
        try IdPSignInRequest.checkAnswer(r)
        return r
    }

    /// `accounts:signInWithPhoneNumber`. A number that belongs to another account comes back as a
    /// temporary proof, which becomes `credentialAlreadyInUse` carrying a credential for that account.
    func phoneCall(_ credential: PhoneAuthCredential, idToken: String?, operation: String) async throws -> JSON {
        var body: [String: JSON] = ["operation": .string(operation)]
        switch credential.proof {
        case .verification(let id, let code):
            body["sessionInfo"] = .string(id)
            body["code"] = .string(code)
        case .temporaryProof(let phoneNumber, let proof):
            body["phoneNumber"] = .string(phoneNumber)
            body["temporaryProof"] = .string(proof)
        }
        if let idToken { body["idToken"] = .string(idToken) }
        let r = try await client.call(.v1("accounts:signInWithPhoneNumber"), body)
        if let proof = r["temporaryProof"]?.string, let phone = r["phoneNumber"]?.string, r["idToken"] == nil {
            throw AuthErrorCode.credentialAlreadyInUse.error(
                message: "This phone number is already linked to another account.",
                userInfo: [
                    AuthErrorUserInfoUpdatedCredentialKey: PhoneAuthCredential(
                        .temporaryProof(phoneNumber: phone, proof: proof)),
                    AuthErrorUserInfoServerCodeKey: "PHONE_NUMBER_EXISTS",
                ])
        }
        return r
    }
}
