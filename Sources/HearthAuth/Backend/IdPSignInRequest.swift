import Foundation

/// The `accounts:signInWithIdp` body for an OAuth credential, field for field as FirebaseAuth's
/// iOS SDK sends it: the provider's tokens form-encoded in `postBody`, Apple's name as a JSON
/// `user` object inside it, `returnIdpCredential` so link conflicts come back with a credential.
enum IdPSignInRequest {
    /// - Parameters:
    ///   - credential: the provider's tokens.
    ///   - idToken: the signed-in user's Hearth ID token when linking.
    ///   - autoCreate: false for re-authentication, which must not create an account.
    static func body(for credential: OAuthCredential, idToken: String?, autoCreate: Bool) -> [String: JSON] {
        var post: [(String, String)] = [("providerId", credential.provider)]
        if let token = credential.idToken { post.append(("id_token", token)) }
        if let nonce = credential.rawNonce { post.append(("nonce", nonce)) }
        if let token = credential.accessToken { post.append(("access_token", token)) }
        if let secret = credential.secret { post.append(("oauth_token_secret", secret)) }
        if let user = appleUserJSON(credential.fullName) { post.append(("user", user)) }

        var body: [String: JSON] = [
            "requestUri": "http://localhost",  // required by the server, unused for token credentials
            "returnSecureToken": true,
            "returnIdpCredential": true,
            "autoCreate": .bool(autoCreate),
        ]
        if credential.idToken != nil || credential.accessToken != nil || credential.secret != nil {
            body["postBody"] = .string(formEncode(post))
        }
        if let pending = credential.pendingToken { body["pendingToken"] = .string(pending) }
        if let redirect = credential.webRedirect {
            body["requestUri"] = .string(redirect.requestURI)
            body["sessionId"] = .string(redirect.sessionID)
        }
        if let idToken { body["idToken"] = .string(idToken) }
        return body
    }

    /// Throws Firebase's two in-band failures of a 200 answer, with what the caller needs to recover:
    /// `errorMessage` (with `returnIdpCredential`, a link conflict such as FEDERATED_USER_ID_ALREADY_LINKED
    /// → `credentialAlreadyInUse`) and `needConfirmation` (→ `accountExistsWithDifferentCredential`).
    /// The provider's credential goes under `AuthErrorUserInfoUpdatedCredentialKey`, the e-mail under
    /// `AuthErrorUserInfoEmailKey`.
    static func checkAnswer(_ r: JSON) throws {
        var recovery: [String: Any] = [:]
        if let updated = OAuthCredential(idpResponse: r) { recovery[AuthErrorUserInfoUpdatedCredentialKey] = updated }
        if let email = r["email"]?.string { recovery[AuthErrorUserInfoEmailKey] = email }
        if let message = r["errorMessage"]?.string {
            throw ServerErrorMapping.error(serverMessage: message, userInfo: recovery)
        }
        if r["needConfirmation"]?.bool == true {
            throw AuthErrorCode.accountExistsWithDifferentCredential.error(userInfo: recovery)
        }
    }

    /// `{"name":{"firstName":…,"lastName":…}}`, the shape Apple's web flow posts and Firebase forwards.
    static func appleUserJSON(_ name: PersonNameComponents?) -> String? {
        guard let name, name.givenName != nil || name.familyName != nil else { return nil }
        var parts: [String: JSON] = [:]
        if let given = name.givenName { parts["firstName"] = .string(given) }
        if let family = name.familyName { parts["lastName"] = .string(family) }
        return String(decoding: JSON.object(["name": .object(parts)]).data, as: UTF8.self)
    }

    /// `application/x-www-form-urlencoded`, escaping everything but unreserved characters so any
    /// token or JSON survives the round trip.
    static func formEncode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func escape(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s }
        return pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}
