import Crypto
import HearthWebAuthnTestSupport
import Testing

@testable import HearthWebAuthn

/// §7.2 and the counter rule against vectors from `SoftwareAuthenticator`.
@Suite struct AssertionTests {
    static let rp = RegistrationTests.rp
    static let challenge: [UInt8] = Array(repeating: 9, count: 32)
    static let up = SoftwareAuthenticator.upFlag, uv = SoftwareAuthenticator.uvFlag
    static let be = SoftwareAuthenticator.beFlag, bs = SoftwareAuthenticator.bsFlag

    /// An assertion with everything right except what the arguments change.
    static func assert(
        _ auth: SoftwareAuthenticator, type: String = "webauthn.get", challenge: [UInt8] = challenge,
        origin: String = "https://example.com", crossOrigin: Bool? = nil, rpID: String = "example.com",
        flags: UInt8 = up | uv, signCount: UInt32 = 0, storedSignCount: UInt32 = 0, signer: TestCredentialKey? = nil,
        storedKey: [UInt8]? = nil
    ) throws(WebAuthnFailure) -> VerifiedAssertion {
        let clientData = SoftwareAuthenticator.clientData(
            type: type, challenge: challenge, origin: origin, crossOrigin: crossOrigin)
        let authData = auth.authenticatorData(rpID: rpID, flags: flags, signCount: signCount, attested: false)
        let signature = (signer ?? auth.key).sign(authData + Array(SHA256.hash(data: clientData)))
        return try WebAuthn.verifyAssertion(
            clientDataJSON: clientData, authenticatorData: authData, signature: signature,
            expectedChallenge: Self.challenge, relyingParty: rp,
            credentialPublicKey: storedKey ?? auth.key.cose.encoded,
            storedSignCount: storedSignCount)
    }

    static func expectRefused(
        _ because: Comment, kind: WebAuthnFailure.Kind = .invalidResponse,
        _ body: () throws(WebAuthnFailure) -> VerifiedAssertion
    ) {
        do {
            let accepted = try body()
            Issue.record("accepted \(accepted): \(because)")
        } catch {
            #expect(error.kind == kind, because)
        }
    }

    @Test(arguments: RegistrationTests.KeyKind.allCases)
    func acceptsASignatureByTheStoredKey(kind: RegistrationTests.KeyKind) throws {
        let auth = RegistrationTests.authenticator(kind)
        let result = try Self.assert(auth, crossOrigin: false, signCount: 5, storedSignCount: 4)
        #expect(result == VerifiedAssertion(signCount: 5, backupEligible: false, backedUp: false))
        Self.expectRefused("signed by another key") { () throws(WebAuthnFailure) in
            try Self.assert(auth, signer: RegistrationTests.authenticator(kind == .es256 ? .ed25519 : .es256).key)
        }
    }

    @Test func refusesEachCheck() throws {
        let auth = RegistrationTests.authenticator(.es256)
        let other = P256.Signing.PrivateKey()
        let cases: [(Comment, () throws(WebAuthnFailure) -> VerifiedAssertion)] = [
            ("type webauthn.create", { () throws(WebAuthnFailure) in try Self.assert(auth, type: "webauthn.create") }),
            ("another challenge", { () throws(WebAuthnFailure) in try Self.assert(auth, challenge: [1, 2, 3]) }),
            (
                "another origin",
                { () throws(WebAuthnFailure) in try Self.assert(auth, origin: "https://example.com.evil") }
            ),
            ("crossOrigin true", { () throws(WebAuthnFailure) in try Self.assert(auth, crossOrigin: true) }),
            ("another RP id", { () throws(WebAuthnFailure) in try Self.assert(auth, rpID: "sub.example.com") }),
            ("UP missing", { () throws(WebAuthnFailure) in try Self.assert(auth, flags: Self.uv) }),
            ("UV missing", { () throws(WebAuthnFailure) in try Self.assert(auth, flags: Self.up) }),
            (
                "BS without BE",
                { () throws(WebAuthnFailure) in try Self.assert(auth, flags: Self.up | Self.uv | Self.bs) }
            ),
            ("bad signature", { () throws(WebAuthnFailure) in try Self.assert(auth, signer: .es256(other)) }),
            (
                "stored key with trailing bytes",
                { () throws(WebAuthnFailure) in
                    try Self.assert(auth, storedKey: auth.key.cose.encoded + [0])
                }
            ),
            ("stored key garbage", { () throws(WebAuthnFailure) in try Self.assert(auth, storedKey: [0xFF]) }),
        ]
        for (why, body) in cases { Self.expectRefused(why, body) }
        var tampered = auth
        tampered.credentialID = []
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: Self.challenge)
        let authData = auth.authenticatorData(flags: Self.up | Self.uv, signCount: 1, attested: false)
        var signature = auth.key.sign(authData + Array(SHA256.hash(data: clientData)))
        signature[signature.count - 1] ^= 1
        Self.expectRefused("flipped signature bit") { () throws(WebAuthnFailure) in
            try WebAuthn.verifyAssertion(
                clientDataJSON: clientData, authenticatorData: authData, signature: signature,
                expectedChallenge: Self.challenge, relyingParty: Self.rp, credentialPublicKey: auth.key.cose.encoded,
                storedSignCount: 0)
        }
    }

    /// A device-bound credential whose counter does not move forward was probably copied; a synced one's counter is
    /// per device or always 0, so nothing follows from it.
    @Test func appliesTheCounterRule() throws {
        let auth = RegistrationTests.authenticator(.es256)
        let deviceBound = Self.up | Self.uv
        // (presented, stored, flags) that pass.
        for (presented, stored, flags) in [
            (0, 0, deviceBound), (1, 0, deviceBound), (8, 7, deviceBound), (UInt32.max, 5, deviceBound),
            (0, 0, deviceBound | Self.be), (3, 9, deviceBound | Self.be), (0, 9, deviceBound | Self.be | Self.bs),
            (9, 9, deviceBound | Self.be | Self.bs),
        ] as [(UInt32, UInt32, UInt8)] {
            let result = try Self.assert(auth, flags: flags, signCount: presented, storedSignCount: stored)
            #expect(result.signCount == presented)
            #expect(result.backupEligible == (flags & Self.be != 0))
            #expect(result.backedUp == (flags & Self.bs != 0))
        }
        for (presented, stored) in [(7, 7), (6, 7), (0, 7), (1, 1)] as [(UInt32, UInt32)] {
            Self.expectRefused("counter \(presented) after \(stored)", kind: .possibleClone) {
                () throws(WebAuthnFailure) in
                try Self.assert(auth, flags: deviceBound, signCount: presented, storedSignCount: stored)
            }
        }
    }
}
