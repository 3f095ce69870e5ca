import Foundation

#if canImport(AuthenticationServices) && (os(iOS) || os(tvOS) || os(macOS) || targetEnvironment(macCatalyst))
    import AuthenticationServices
#endif

extension Auth {
    /// Asks the server for a passkey sign-in challenge and returns what an authenticator needs to answer it.
    public func passkeyAssertionOptions() async throws -> PasskeyAssertionOptions {
        try PasskeyWire.assertionOptions(try await client.call(.v2("accounts/passkeySignIn:start"), [:]))
    }

    /// Signs in with an authenticator's assertion; the server finds the account by the credential.
    public func finalizePasskeySignIn(with assertion: PasskeyAssertion) async throws -> AuthDataResult {
        let r = try await client.call(.v2("accounts/passkeySignIn:finalize"), PasskeyWire.signInBody(assertion))
        let user = try await makeUser(r, isAnonymous: false)
        try setCurrentUser(user)
        return AuthDataResult(user: user, additionalUserInfo: nil)
    }
}

#if canImport(AuthenticationServices) && (os(iOS) || os(tvOS) || os(macOS) || targetEnvironment(macCatalyst))
    extension Auth {
        /// FirebaseAuth's passkey sign-in: a platform assertion request for the server's challenge.
        @available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
        public func startPasskeySignIn() async throws -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
            let options = try await passkeyAssertionOptions()
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(
                relyingPartyIdentifier: options.relyingPartyID)
            return provider.createCredentialAssertionRequest(challenge: options.challenge)
        }

        /// Signs in with the assertion the platform made for `startPasskeySignIn()`'s request.
        @available(iOS 15.0, macOS 12.0, tvOS 16.0, *)
        public func finalizePasskeySignIn(
            withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion
        ) async throws -> AuthDataResult {
            try await finalizePasskeySignIn(
                with: PasskeyAssertion(
                    credentialID: platformCredential.credentialID,
                    clientDataJSON: platformCredential.rawClientDataJSON,
                    authenticatorData: platformCredential.rawAuthenticatorData,
                    signature: platformCredential.signature, userID: platformCredential.userID))
        }
    }
#endif
