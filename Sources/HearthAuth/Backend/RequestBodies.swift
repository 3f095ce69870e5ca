/// Request bodies of calls with fixed shapes (custom tokens, token revocation, multi-factor sign-in start),
/// field for field as FirebaseAuth's iOS SDK sends them. Pure, so tests check them without a server.
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
}
