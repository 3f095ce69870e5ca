import Foundation
import Testing

@testable import HearthAuth

/// The platform-neutral passkey layer against the wire shapes of firebase-ios-sdk's `passkey-sv` branch: what the
/// `start` answers decode to, what the `finalize` bodies carry, and the account's `passkeyInfo`.
@Suite struct PasskeyWireTests {
    @Test func decodesCreationOptionsAsTheIOSBranchReadsThem() throws {
        let answer: JSON = [
            "credentialCreationOptions": [
                "rp": ["id": "example.com", "name": "Example"], "user": ["id": "dXNlci1oYW5kbGU=", "name": "a@b.c"],
                "challenge": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
                "pubKeyCredParams": [["type": "public-key", "alg": .number(-7)]],
            ]
        ]
        let options = try PasskeyWire.creationOptions(answer, name: "Laptop")
        #expect(options.relyingPartyID == "example.com")
        #expect(options.userID == Data("user-handle".utf8))
        #expect(options.challenge == Data(0..<32))
        #expect(options.name == "Laptop")
        // base64url, which the iOS branch cannot read either, is refused rather than guessed at.
        let urlAlphabet: JSON = [
            "credentialCreationOptions": ["rp": ["id": "x"], "user": ["id": "_-8"], "challenge": "AAEC"]
        ]
        #expect(throws: NSError.self) { try PasskeyWire.creationOptions(urlAlphabet, name: "n") }
        #expect(throws: NSError.self) { try PasskeyWire.creationOptions(["credentialCreationOptions": [:]], name: "n") }
    }

    @Test func decodesAssertionOptions() throws {
        let answer: JSON = [
            "credentialRequestOptions": ["rpId": "example.com", "challenge": "AQID", "userVerification": "required"]
        ]
        #expect(
            try PasskeyWire.assertionOptions(answer)
                == PasskeyAssertionOptions(relyingPartyID: "example.com", challenge: Data([1, 2, 3])))
        #expect(throws: NSError.self) { try PasskeyWire.assertionOptions(["credentialRequestOptions": ["rpId": "x"]]) }
    }

    @Test func encodesTheFinalizeBodiesInStandardBase64() throws {
        let registration = PasskeyRegistration(
            credentialID: Data([0xFB, 0xFF]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xA0]))
        try PasskeyWire.checkComplete(registration)
        #expect(
            PasskeyWire.enrollmentBody(registration, idToken: "token", name: "Phone") == [
                "idToken": "token", "name": "Phone",
                "authenticatorRegistrationResponse": [
                    "id": "+/8=", "response": ["clientDataJSON": "e30=", "attestationObject": "oA=="],
                ],
            ])
        var incomplete = registration
        incomplete.attestationObject = Data()
        #expect(throws: NSError.self) { try PasskeyWire.checkComplete(incomplete) }

        let assertion = PasskeyAssertion(
            credentialID: Data([0xFB, 0xFF]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([1]),
            signature: Data([2]), userID: Data([3]))
        #expect(
            PasskeyWire.signInBody(assertion) == [
                "authenticatorAuthenticationResponse": [
                    "id": "+/8=",
                    "response": [
                        "clientDataJSON": "e30=", "authenticatorData": "AQ==", "signature": "Ag==",
                        "userHandle": "Aw==",
                    ],
                ]
            ])
    }

    @Test func readsPasskeyInfoFromLookupAndLeavesAnonymityBehind() {
        let tokens = TokenSet(idToken: "id", refreshToken: "refresh", expiresIn: 3600)
        var record = UserRecord(tokens: tokens, lookup: ["localId": "uid-1"], isAnonymous: true, tenantID: nil)
        #expect(record.passkeyInfo == [])
        #expect(record.isAnonymous)
        record.update(lookup: [
            "localId": "uid-1", "passkeyInfo": [["credentialId": "FCBopZ3mzjfPNXqWXXjAM/ZnnlQ=", "name": "iPhone"]],
        ])
        #expect(!record.isAnonymous)
        let info = (record.passkeyInfo ?? []).map(PasskeyInfo.init(lookup:))
        #expect(info.map(\.credentialID) == ["FCBopZ3mzjfPNXqWXXjAM/ZnnlQ="])
        #expect(info.map(\.name) == ["iPhone"])
    }

    @Test func mapsThePasskeyServerCodes() {
        let invalid = ServerErrorMapping.error(serverMessage: "INVALID_AUTHENTICATOR_RESPONSE : bad signature")
        #expect(invalid.code == AuthErrorCode.invalidAuthenticatorResponse.rawValue)
        let missing = ServerErrorMapping.error(serverMessage: "PASSKEY_ENROLLMENT_NOT_FOUND")
        #expect(missing.code == AuthErrorCode.missingPasskeyEnrollment.rawValue)
        #expect(AuthErrorCode.missingPasskeyEnrollment.errorName == "ERROR_PASSKEY_ENROLLMENT_NOT_FOUND")
        #expect(AuthErrorCode.invalidAuthenticatorResponse.errorName == "ERROR_INVALID_AUTHENTICATOR_RESPONSE")
        // The iOS branch leaves these unmapped: internal errors that keep the server's code.
        let exists = ServerErrorMapping.error(serverMessage: "PASSKEY_EXISTS")
        #expect(exists.code == AuthErrorCode.internalError.rawValue)
        #expect(exists.userInfo[AuthErrorUserInfoServerCodeKey] as? String == "PASSKEY_EXISTS")
    }
}
