import Foundation
import Testing

@testable import HearthAuth

/// What `signIn(with:)` sends for provider credentials and how it reads the answers. The server's
/// `accounts:signInWithIdp` is still being built, so these check the wire format without one.
@Suite("signInWithIdp wire format")
struct IdPSignInRequestTests {
    func form(_ body: [String: JSON]) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (body["postBody"]?.string ?? "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding! }
            out[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        return out
    }

    @Test func appleCredentialSendsTokenNonceAndNameAsFirebaseDoes() throws {
        var name = PersonNameComponents()
        name.givenName = "하늘"
        name.familyName = "Kim & Co"
        let credential = OAuthProvider.appleCredential(
            withIDToken: "apple.jwt.sig", rawNonce: "raw-nonce", fullName: name)
        let body = IdPSignInRequest.body(for: credential, idToken: nil, autoCreate: true)
        #expect(body["requestUri"] == "http://localhost")
        #expect(body["returnSecureToken"] == true)
        #expect(body["returnIdpCredential"] == true)
        #expect(body["autoCreate"] == true)
        #expect(body["idToken"] == nil)
        let post = form(body)
        #expect(post["providerId"] == "apple.com")
        #expect(post["id_token"] == "apple.jwt.sig")
        #expect(post["nonce"] == "raw-nonce")
        #expect(post["access_token"] == nil)
        let user = try #require(post["user"].flatMap { JSON.parse(Data($0.utf8)) })
        #expect(user == ["name": ["firstName": "하늘", "lastName": "Kim & Co"]])
    }

    @Test func seedSpellingsBuildTheSameCredential() {
        let a = OAuthProvider.credential(withProviderID: "apple.com", IDToken: "t", rawNonce: "n")
        let b = OAuthProvider.credential(withProviderID: "apple.com", idToken: "t", rawNonce: "n")
        let c = OAuthProvider.credential(providerID: .apple, idToken: "t", rawNonce: "n")
        let bodies = [a, b, c].map { IdPSignInRequest.body(for: $0, idToken: nil, autoCreate: true) }
        #expect(bodies[0] == bodies[1])
        #expect(bodies[1] == bodies[2])
        #expect(IdPSignInRequest.appleUserJSON(nil) == nil)
    }

    @Test func facebookGoogleAndLinkingBodies() {
        let classic = FacebookAuthProvider.credential(withAccessToken: "fb-access") as! OAuthCredential
        let limited = OAuthProvider.credential(withProviderID: "facebook.com", idToken: "fb.oidc.jwt", rawNonce: "n2")
        let google = GoogleAuthProvider.credential(withIDToken: "g.id", accessToken: "g-access") as! OAuthCredential
        #expect(
            form(IdPSignInRequest.body(for: classic, idToken: nil, autoCreate: true)) == [
                "providerId": "facebook.com", "access_token": "fb-access",
            ])
        #expect(
            form(IdPSignInRequest.body(for: limited, idToken: nil, autoCreate: true)) == [
                "providerId": "facebook.com", "id_token": "fb.oidc.jwt", "nonce": "n2",
            ])
        #expect(
            form(IdPSignInRequest.body(for: google, idToken: nil, autoCreate: true)) == [
                "providerId": "google.com", "id_token": "g.id", "access_token": "g-access",
            ])
        let linking = IdPSignInRequest.body(for: google, idToken: "hearth-id-token", autoCreate: false)
        #expect(linking["idToken"] == "hearth-id-token")
        #expect(linking["autoCreate"] == false)
    }

    /// Seed 000's linking flow: the server answers 200 with errorMessage and the provider's token;
    /// the error carries a credential that signs in to the account that owns it.
    @Test func alreadyLinkedAnswerBecomesCredentialAlreadyInUseWithTheUpdatedCredential() throws {
        let answer: JSON = [
            "providerId": "apple.com", "email": "relay@privaterelay.appleid.com",
            "errorMessage": "FEDERATED_USER_ID_ALREADY_LINKED", "oauthIdToken": "apple.jwt.again",
            "pendingToken": "pending-1",
        ]
        let error = try #require(throws: NSError.self) { try IdPSignInRequest.checkAnswer(answer) }
        #expect(error.code == AuthErrorCode.credentialAlreadyInUse.rawValue)
        #expect(error.userInfo[AuthErrorUserInfoEmailKey] as? String == "relay@privaterelay.appleid.com")
        let updated = try #require(error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)
        #expect(updated.provider == "apple.com")
        #expect(updated.idToken == "apple.jwt.again")
        let retry = IdPSignInRequest.body(for: updated, idToken: nil, autoCreate: true)
        #expect(retry["pendingToken"] == "pending-1")
        #expect(form(retry)["id_token"] == "apple.jwt.again")
    }

    @Test func needConfirmationBecomesAccountExistsWithDifferentCredential() throws {
        let answer: JSON = [
            "providerId": "facebook.com", "email": "taken@example.com", "needConfirmation": true,
            "oauthAccessToken": "fb-access",
        ]
        let error = try #require(throws: NSError.self) { try IdPSignInRequest.checkAnswer(answer) }
        #expect(error.code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue)
        #expect(error.userInfo[AuthErrorUserInfoEmailKey] as? String == "taken@example.com")
        #expect((error.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? OAuthCredential)?.accessToken == "fb-access")

        let nonce = try #require(throws: NSError.self) {
            try IdPSignInRequest.checkAnswer(["errorMessage": "MISSING_OR_INVALID_NONCE : Nonce is missing"])
        }
        #expect(nonce.code == AuthErrorCode.missingOrInvalidNonce.rawValue)
        try IdPSignInRequest.checkAnswer(["providerId": "apple.com", "idToken": "x", "refreshToken": "y"])
    }

    @Test func idpAnswerFillsAdditionalUserInfo() {
        let answer: JSON = [
            "providerId": "apple.com", "isNewUser": true,
            "rawUserInfo": .string(#"{"email":"a@b.c","is_private_email":"true"}"#),
        ]
        let info = AdditionalUserInfo(idpResponse: answer, providerID: "apple.com")
        #expect(info.isNewUser)
        #expect(info.providerID == "apple.com")
        #expect(info.profile?["email"] as? String == "a@b.c")
    }
}
