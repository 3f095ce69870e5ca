import HearthWebAuthnTestSupport
import Testing

@testable import HearthWebAuthn

/// A registration and an assertion made by python-fido2 2.2.1 (PyPI; pinned in tests/interop/requirements.txt) with
/// `cryptography`'s P-256: CBOR, the COSE key and clientDataJSON encoded by another implementation than ours. A synced
/// credential (BE and BS set, counter 0) with packed self attestation. Produced once by this script of ours, run with
/// the interop venv's python; the output is checked in as hex:
///
/// ```python
/// import hashlib, json
/// from cryptography.hazmat.primitives.asymmetric import ec
/// from cryptography.hazmat.primitives import hashes
/// from fido2.cose import ES256
/// from fido2.webauthn import (AttestedCredentialData, AuthenticatorData, AttestationObject,
///                             CollectedClientData)
///
/// rp_id, origin = "example.com", "https://example.com"
/// key = ec.generate_private_key(ec.SECP256R1())
/// cred_id = bytes(range(16))
/// aaguid = bytes(16)
/// flags = AuthenticatorData.FLAG.UP | AuthenticatorData.FLAG.UV | AuthenticatorData.FLAG.BE | AuthenticatorData.FLAG.BS
/// rp_hash = hashlib.sha256(rp_id.encode()).digest()
///
/// reg_challenge = bytes([1]) * 32
/// cd = CollectedClientData.create(CollectedClientData.TYPE.CREATE, reg_challenge, origin)
/// cred = AttestedCredentialData.create(aaguid, cred_id, ES256.from_cryptography_key(key.public_key()))
/// auth_data = AuthenticatorData.create(rp_hash, flags | AuthenticatorData.FLAG.AT, 0, cred)
/// sig = key.sign(bytes(auth_data) + cd.hash, ec.ECDSA(hashes.SHA256()))
/// att = AttestationObject.create("packed", auth_data, {"alg": -7, "sig": sig})
///
/// get_challenge = bytes([2]) * 32
/// cd2 = CollectedClientData.create(CollectedClientData.TYPE.GET, get_challenge, origin)
/// ad2 = AuthenticatorData.create(rp_hash, flags, 0)
/// sig2 = key.sign(bytes(ad2) + cd2.hash, ec.ECDSA(hashes.SHA256()))
/// print(json.dumps({"registrationClientDataJSON": bytes(cd).hex(), "attestationObject": bytes(att).hex(),
///     "assertionClientDataJSON": bytes(cd2).hex(), "authenticatorData": bytes(ad2).hex(), "signature": sig2.hex()}))
/// ```
@Suite struct Fido2VectorTests {
    static let rp = RelyingParty(id: "example.com", origins: ["https://example.com"])
    static let registrationClientDataJSON = hex(
        "7b2274797065223a22776562617574686e2e637265617465222c226368616c6c656e6765223a22415145424151454241",
        "51454241514542415145424151454241514542415145424151454241514542415145222c226f726967696e223a226874",
        "7470733a2f2f6578616d706c652e636f6d222c2263726f73734f726967696e223a66616c73657d")
    static let attestationObject = hex(
        "a363666d74667061636b65646761747453746d74a263616c67266373696758463044022046043ad4d78be55b7687338e",
        "7f4d17545fae353ee1e2a49a4dec5946e6fb8a4102200bc9791aaf1bf23b44886212d499541c47f5343c889ff6961429",
        "bc08b8f3d1656861757468446174615894a379a6f6eeafb9a55e378c118034e2751e682fab9f2d30ab13d2125586ce19",
        "475d00000000000000000000000000000000000000000010000102030405060708090a0b0c0d0e0fa501020326200121",
        "582095f3dc7454777758432cb9514004607b15c470b7f5a379a0af5146fbc9571fbc22582010ef7c2691e2c9f15f0075",
        "eedbd2797949cc0f01a83debb3da79f791fd10a612")
    static let assertionClientDataJSON = hex(
        "7b2274797065223a22776562617574686e2e676574222c226368616c6c656e6765223a22416749434167494341674943",
        "41674943416749434167494341674943416749434167494341674943416749222c226f726967696e223a226874747073",
        "3a2f2f6578616d706c652e636f6d222c2263726f73734f726967696e223a66616c73657d")
    static let authenticatorData = hex(
        "a379a6f6eeafb9a55e378c118034e2751e682fab9f2d30ab13d2125586ce19471d00000000")
    static let signature = hex(
        "3046022100c991b65255a1c87945fa0d672a1affbbaae01ad48cad484d7deedc9e46c86def02210083344b3b6d10ecfc",
        "223968282a9186121ae80b0e85dcb2e9554dab1f9f1d429e")

    static func hex(_ parts: String...) -> [UInt8] {
        let text = Array(parts.joined().utf8)
        return stride(from: 0, to: text.count, by: 2).map {
            UInt8(String(decoding: text[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    @Test func verifiesFido2sRegistrationAndAssertion() throws {
        let registration = try WebAuthn.verifyRegistration(
            clientDataJSON: Self.registrationClientDataJSON, attestationObject: Self.attestationObject,
            expectedChallenge: Array(repeating: 1, count: 32), relyingParty: Self.rp)
        #expect(registration.credentialID == Array(0..<16))
        #expect(registration.algorithm == -7)
        #expect(registration.attestationFormat == "packed")
        #expect(registration.backupEligible && registration.backedUp)
        #expect(registration.signCount == 0)
        #expect(registration.aaguid == Array(repeating: 0, count: 16))

        let assertion = try WebAuthn.verifyAssertion(
            clientDataJSON: Self.assertionClientDataJSON, authenticatorData: Self.authenticatorData,
            signature: Self.signature, expectedChallenge: Array(repeating: 2, count: 32), relyingParty: Self.rp,
            credentialPublicKey: registration.publicKey, storedSignCount: 0)
        #expect(assertion == VerifiedAssertion(signCount: 0, backupEligible: true, backedUp: true))
        #expect(throws: WebAuthnFailure.self) {
            try WebAuthn.verifyAssertion(
                clientDataJSON: Self.assertionClientDataJSON, authenticatorData: Self.authenticatorData,
                signature: Self.signature, expectedChallenge: Array(repeating: 1, count: 32), relyingParty: Self.rp,
                credentialPublicKey: registration.publicKey, storedSignCount: 0)
        }
    }
}
