import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthTokens
import JWTKit
import Testing

@Suite("ID tokens: third-party verification and forgeries")
struct IDTokenVerificationTests {
    @Test func jwtKitVerifiesHearthTokensAgainstThePublishedJWKS() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "jk@example.com", password: "pass-word")
            let jwks = try await c.send(
                "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com", method: .get, key: nil)
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.json.jsonText)
            let token = try await keys.verify(
                up.string("idToken")!, as: FirebaseAuthIdentityToken.self, expectedAudience: h.projectID)
            #expect(token.userID == up.string("localId"))
            #expect(token.email == "jk@example.com")
            #expect(token.audience.value == [h.projectID])
            #expect(token.firebase?.signInProvider == "password")
            #expect(token.firebase?.identities["email"] == ["jk@example.com"])
        }
    }

    /// Every forgery must be refused by accounts:lookup with the code Firebase uses.
    @Test func forgedTokensAreRejected() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "f@example.com", password: "pass-word")
            let valid = up.string("idToken")!
            let parts = valid.split(separator: ".").map(String.init)
            var payload = try claims(of: valid)
            let signer = try h.engine.idTokens.keyRing.currentSigner()
            let now = h.clock.authClock.now().timeIntervalSince1970

            func signed(_ changes: [String: JSONValue]) throws -> String {
                var p = payload
                for (k, v) in changes { p[k] = v }
                return try JWS.signRS256(payload: .object(p), kid: signer.kid, key: signer.privateKey)
            }
            func b64(_ value: JSONValue) -> String { Base64URL.encode(Data(value.jsonText.utf8)) }

            let algNone = b64(["alg": "none", "kid": .string(signer.kid)]) + "." + parts[1] + "."
            let hsInput = b64(["alg": "HS256", "kid": .string(signer.kid)]) + "." + parts[1]
            let hsKey = SymmetricKey(data: Data(signer.publicKey.pemRepresentation.utf8))
            let hs256 =
                hsInput + "."
                + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(hsInput.utf8), using: hsKey)))
            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let unknownKid = try JWS.signRS256(payload: .object(payload), kid: "not-a-known-kid", key: stranger)
            let wrongKeyKnownKid = try JWS.signRS256(payload: .object(payload), kid: signer.kid, key: stranger)
            payload["sub"] = "someone-else"
            let tampered = parts[0] + "." + b64(.object(payload)) + "." + parts[2]
            payload = try claims(of: valid)

            let cases: [(String, String)] = [
                (algNone, "INVALID_ID_TOKEN"),
                (hs256, "INVALID_ID_TOKEN"),
                (unknownKid, "INVALID_ID_TOKEN"),
                (wrongKeyKnownKid, "INVALID_ID_TOKEN"),
                (tampered, "INVALID_ID_TOKEN"),
                (try signed(["aud": "other-project"]), "INVALID_ID_TOKEN"),
                (try signed(["iss": "https://securetoken.google.com/other-project"]), "INVALID_ID_TOKEN"),
                (try signed(["exp": .number(now - 10), "iat": .number(now - 3610)]), "TOKEN_EXPIRED"),
                (try signed(["iat": .number(now + 3600), "exp": .number(now + 7200)]), "INVALID_ID_TOKEN"),
                ("not.a.jwt", "INVALID_ID_TOKEN"),
                ("", "MISSING_ID_TOKEN"),
            ]
            for (token, code) in cases {
                let r = try await c.lookup(token)
                #expect(r.status == 400, "token \(token.prefix(40))")
                #expect(r.errorCode == code, "token \(token.prefix(40))")
            }
            #expect(try await c.lookup(valid).status == 200)
        }
    }
}
