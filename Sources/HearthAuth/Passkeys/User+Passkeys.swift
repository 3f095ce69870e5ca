import Foundation

#if canImport(AuthenticationServices) && (os(iOS) || os(tvOS) || os(macOS) || targetEnvironment(macCatalyst))
    import AuthenticationServices
#endif

extension User {
    /// The account's passkeys as the server last listed them; empty when it has none.
    public var enrolledPasskeys: [PasskeyInfo]? { (record.passkeyInfo ?? []).map(PasskeyInfo.init(lookup:)) }

    /// Asks the server for a passkey enrolment and returns what an authenticator needs to create the credential.
    /// The name (FirebaseAuth's default when nil or empty) is kept for `finalizePasskeyEnrollment(with:)`.
    public func passkeyCreationOptions(withName name: String?) async throws -> PasskeyCreationOptions {
        let r = try await authorizedCall(.v2("accounts/passkeyEnrollment:start")) { ["idToken": .string($0)] }
        let chosen = (name?.isEmpty ?? true) ? PasskeyWire.defaultName : name!
        let options = try PasskeyWire.creationOptions(r, name: chosen)
        state.withLock { $0.passkeyName = chosen }
        return options
    }

    /// Sends the authenticator's new credential; the server verifies it and adds the passkey to the account.
    public func finalizePasskeyEnrollment(with registration: PasskeyRegistration) async throws -> AuthDataResult {
        try PasskeyWire.checkComplete(registration)
        let name = state.withLock { $0.passkeyName } ?? PasskeyWire.defaultName
        let r = try await authorizedCall(.v2("accounts/passkeyEnrollment:finalize")) { idToken in
            PasskeyWire.enrollmentBody(registration, idToken: idToken, name: name)
        }
        state.withLock { $0.passkeyName = nil }
        if let tokens = TokenSet(identityToolkit: r) { apply(tokens) }
        try await reload()
        return AuthDataResult(user: self, additionalUserInfo: nil)
    }

    /// Removes one of the account's passkeys (`credentialID` as `enrolledPasskeys` spells it).
    public func unenrollPasskey(withCredentialID credentialID: String) async throws {
        guard !credentialID.isEmpty else { throw AuthErrorCode.missingPasskeyEnrollment.error() }
        try await updateAccount(["deletePasskey": [.string(credentialID)]])
    }
}

#if canImport(AuthenticationServices) && (os(iOS) || os(tvOS) || os(macOS) || targetEnvironment(macCatalyst))
    extension User {
        /// FirebaseAuth's passkey enrolment: a platform registration request for the server's challenge.
        @available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
        public func startPasskeyEnrollment(withName name: String?) async throws
            -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
        {
            let options = try await passkeyCreationOptions(withName: name)
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(
                relyingPartyIdentifier: options.relyingPartyID)
            return provider.createCredentialRegistrationRequest(
                challenge: options.challenge, name: options.name, userID: options.userID)
        }

        /// Sends the credential the platform created for `startPasskeyEnrollment(withName:)`'s request.
        @available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
        public func finalizePasskeyEnrollment(
            withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialRegistration
        ) async throws -> AuthDataResult {
            try await finalizePasskeyEnrollment(
                with: PasskeyRegistration(
                    credentialID: platformCredential.credentialID,
                    clientDataJSON: platformCredential.rawClientDataJSON,
                    attestationObject: platformCredential.rawAttestationObject ?? Data()))
        }
    }
#endif
