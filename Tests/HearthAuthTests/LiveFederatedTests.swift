import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import HearthAuth

/// Signs identity tokens as Apple does (RS256 by a published key) and publishes the key set.
struct AppleSigner {
    static let bundleID = "com.example.hearth"
    let key: _RSA.Signing.PrivateKey
    let kid = "apple-test-key"

    init() throws { key = try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    var keySet: Data {
        let p = try! key.publicKey.getKeyPrimitives()
        let jwk: [String: String] = [
            "kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig", "n": base64url(p.modulus),
            "e": base64url(p.publicExponent),
        ]
        return try! JSONSerialization.data(withJSONObject: ["keys": [jwk]])
    }

    func identityToken(subject: String, email: String, nonce: String?) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": "https://appleid.apple.com", "aud": Self.bundleID, "sub": subject, "email": email,
            "email_verified": "true", "is_private_email": "true", "iat": now, "exp": now + 600,
        ]
        claims["nonce"] = nonce
        return try signJWT(claims, kid: kid, key: key)
    }
}

func base64url(_ data: some DataProtocol) -> String {
    Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func signJWT(_ claims: [String: Any], kid: String, key: _RSA.Signing.PrivateKey) throws -> String {
    let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": kid])
    let input = base64url(header) + "." + base64url(try JSONSerialization.data(withJSONObject: claims))
    let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
    return input + "." + base64url(signature.rawRepresentation)
}

/// Sign in with Apple and custom tokens through HearthAuth against the real server, which verifies every token
/// itself: Apple's against the key set `KeyServer` publishes, custom tokens against a service account created with
/// `hearth service-accounts create`.
@Suite("Federated and custom-token sign-in, live")
struct LiveFederatedTests {
    func withApple(_ body: (TestServer, AppleSigner) async throws -> Void) async throws {
        let apple = try AppleSigner()
        let keys = try KeyServer(bodies: ["/apple/keys": apple.keySet])
        defer { keys.stop() }
        let server = try await TestServer(federation: [
            "apple": ["clientIds": [AppleSigner.bundleID], "keysUrl": keys.base + "/apple/keys"]
        ])
        defer { server.stop() }
        try await body(server, apple)
    }

    func appleCredential(_ apple: AppleSigner, subject: String, name: PersonNameComponents? = nil) throws
        -> OAuthCredential
    {
        let nonce = try CryptoUtils.randomNonceString()
        let token = try apple.identityToken(
            subject: subject, email: "\(subject)@privaterelay.appleid.com", nonce: CryptoUtils.sha256(nonce))
        return OAuthProvider.appleCredential(withIDToken: token, rawNonce: nonce, fullName: name)
    }

    @Test func appleSignInKeepsTheFirstSignInsNameAndRefusesReplays() async throws {
        try await withApple { server, apple in
            let auth = server.makeAuth()
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            let credential = try appleCredential(apple, subject: "apple-1", name: name)
            let first = try await auth.signIn(with: credential)
            #expect(first.additionalUserInfo?.isNewUser == true)
            #expect(first.additionalUserInfo?.providerID == "apple.com")
            #expect(first.user.displayName == "Ada Lovelace")
            #expect(first.user.providerData.map(\.providerID) == ["apple.com"])
            #expect(try await first.user.getIDTokenResult().signInProvider == "apple.com")

            let replay = await #expect(throws: NSError.self) { try await auth.signIn(with: credential) }
            #expect(replay.map(authCode) == .missingOrInvalidNonce)

            // Apple sends the name only once; a later sign-in without it keeps it.
            let again = try await auth.signIn(with: try appleCredential(apple, subject: "apple-1"))
            #expect(again.additionalUserInfo?.isNewUser == false)
            #expect(again.user.uid == first.user.uid)
            #expect(again.user.displayName == "Ada Lovelace")

            let wrongNonce = OAuthProvider.appleCredential(
                withIDToken: try apple.identityToken(
                    subject: "apple-1", email: "a@b.com", nonce: CryptoUtils.sha256("x")),
                rawNonce: "y", fullName: nil)
            let refused = await #expect(throws: NSError.self) { try await auth.signIn(with: wrongNonce) }
            #expect(refused.map(authCode) == .missingOrInvalidNonce)
        }
    }

    /// Seed 000's linking flow: the Apple account is already someone else's, so linking fails with
    /// `credentialAlreadyInUse` and a credential that signs in to that account.
    @Test func linkingAnAppleAccountInUseHandsBackACredentialThatSignsIn() async throws {
        try await withApple { server, apple in
            let ownerAuth = server.makeAuth()
            let owner = try await ownerAuth.signIn(with: try appleCredential(apple, subject: "apple-2")).user

            let auth = server.makeAuth()
            let user = try await auth.signInAnonymously().user
            let error = await #expect(throws: NSError.self) {
                try await user.link(with: try appleCredential(apple, subject: "apple-2"))
            }
            #expect(error.map(authCode) == .credentialAlreadyInUse)
            let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? AuthCredential)
            #expect(auth.currentUser?.uid == user.uid)

            let switched = try await auth.signIn(with: updated)
            #expect(switched.user.uid == owner.uid)

            // A fresh Apple account links to the anonymous user and keeps its uid.
            let other = try await server.makeAuth().signInAnonymously().user
            let linked = try await other.link(with: try appleCredential(apple, subject: "apple-3"))
            #expect(linked.user.uid == other.uid)
            #expect(other.isAnonymous == false)
        }
    }

    /// Facebook Limited Login: an OIDC token from Facebook's key set, addressed to the app id, with the nonce.
    @Test func facebookLimitedLoginSignsInWithItsNonce() async throws {
        let facebook = try AppleSigner()  // the same RS256 signing, another key
        let keys = try KeyServer(bodies: ["/facebook/jwks": facebook.keySet])
        defer { keys.stop() }
        let server = try await TestServer(federation: [
            "facebook": ["appId": "4242", "appSecret": "unused", "keysUrl": keys.base + "/facebook/jwks"]
        ])
        defer { server.stop() }
        let nonce = try CryptoUtils.randomNonceString()
        let now = Int(Date().timeIntervalSince1970)
        let token = try signJWT(
            [
                "iss": "https://www.facebook.com", "aud": "4242", "sub": "fb-1", "name": "Grace Hopper",
                "email": "grace@example.com", "nonce": CryptoUtils.sha256(nonce), "iat": now, "exp": now + 600,
            ], kid: facebook.kid, key: facebook.key)
        let auth = server.makeAuth()
        let credential = OAuthProvider.credential(providerID: .facebook, idToken: token, rawNonce: nonce)
        let result = try await auth.signIn(with: credential)
        #expect(result.additionalUserInfo?.providerID == "facebook.com")
        #expect(result.user.providerData.map(\.providerID) == ["facebook.com"])
        #expect(result.user.displayName == "Grace Hopper")

        let wrongApp = try signJWT(
            ["iss": "https://www.facebook.com", "aud": "9999", "sub": "fb-1", "iat": now, "exp": now + 600],
            kid: facebook.kid, key: facebook.key)
        let refused = await #expect(throws: NSError.self) {
            try await auth.signIn(with: OAuthProvider.credential(providerID: .facebook, idToken: wrongApp))
        }
        #expect(refused != nil)
    }

    @Test func aCustomTokenFromTheServiceAccountSignsIn() async throws {
        let server = try await TestServer()
        defer { server.stop() }
        let file = server.directory.appendingPathComponent("service-account.json")
        _ = try await server.cli(["service-accounts", "create", "--out", file.path])
        let account = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let email = try #require(account["client_email"] as? String)
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: try #require(account["private_key"] as? String))
        let now = Int(Date().timeIntervalSince1970)
        let token = try signJWT(
            [
                "iss": email, "sub": email, "uid": "kakao:12345", "iat": now, "exp": now + 3600,
                "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
                "claims": ["plan": "pro"],
            ], kid: try #require(account["private_key_id"] as? String), key: key)

        let auth = server.makeAuth()
        let result = try await auth.signIn(withCustomToken: token)
        #expect(result.user.uid == "kakao:12345")
        #expect(result.additionalUserInfo?.isNewUser == true)
        let claims = try await result.user.getIDTokenResult(forcingRefresh: true)
        #expect(claims.signInProvider == "custom")
        #expect(claims.claims["plan"] as? String == "pro", "custom-token claims survive a refresh")

        let forged = await #expect(throws: NSError.self) { try await auth.signIn(withCustomToken: token + "x") }
        #expect(forged.map(authCode) == .invalidCustomToken)
    }
}
