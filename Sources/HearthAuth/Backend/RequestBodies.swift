/// Request bodies of the calls whose server side is still being built (custom tokens, token
/// revocation, multi-factor sign-in), field for field as FirebaseAuth's iOS SDK sends them. Pure, so
/// tests check them without a server.
enum RequestBodies {
    /// `accounts:signInWithCustomToken`.
    static func customTokenSignIn(token: String) -> [String: JSON] {
        ["token": .string(token), "returnSecureToken": true]
    }

    /// `v2/accounts:revokeToken` for Sign in with Apple: the token type is the string "3"
    /// (authorization code), as FirebaseAuth sends it.
    static func appleTokenRevocation(authorizationCode: String, idToken: String) -> [String: JSON] {
        [
            "providerId": .string(AuthProviderID.apple.rawValue), "tokenType": "3",
            "token": .string(authorizationCode), "idToken": .string(idToken),
        ]
    }

    /// `v2/accounts/mfaSignIn:start` for a phone factor.
    static func phoneSecondFactorStart(pendingCredential: String, enrollmentID: String) -> [String: JSON] {
        [
            "mfaPendingCredential": .string(pendingCredential), "mfaEnrollmentId": .string(enrollmentID),
            "phoneSignInInfo": [:],
        ]
    }

    /// `v2/accounts/mfaSignIn:finalize` with the code sent to the phone factor.
    static func phoneSecondFactorFinalize(pendingCredential: String, sessionInfo: String, code: String)
        -> [String: JSON]
    {
        [
            "mfaPendingCredential": .string(pendingCredential),
            "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
        ]
    }
}
