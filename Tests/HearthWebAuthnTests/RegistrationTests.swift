import Crypto
import HearthWebAuthnTestSupport
import Testing

@testable import HearthWebAuthn

/// §7.1 against vectors from `SoftwareAuthenticator`: each accepted shape, then each check's refusal.
@Suite struct RegistrationTests {
    static let rp = RelyingParty(id: "example.com", origins: ["https://example.com", "android:apk-key-hash:abc"])
    static let challenge: [UInt8] = Array(repeating: 7, count: 32)
    static let goodFlags = SoftwareAuthenticator.upFlag | SoftwareAuthenticator.uvFlag | SoftwareAuthenticator.atFlag

    enum KeyKind: String, CaseIterable { case es256, rs256, ed25519 }

    static func authenticator(_ kind: KeyKind) -> SoftwareAuthenticator {
        switch kind {
        case .es256: SoftwareAuthenticator(key: .es256(P256.Signing.PrivateKey()))
        case .rs256: SoftwareAuthenticator(key: .rs256(TestCredentialKey.sharedRSA))
        case .ed25519: SoftwareAuthenticator(key: .ed25519(Curve25519.Signing.PrivateKey()))
        }
    }

    /// A registration with everything right except what the arguments change.
    static func register(
        _ auth: SoftwareAuthenticator, type: String = "webauthn.create", challenge: [UInt8] = challenge,
        origin: String = "https://example.com", crossOrigin: Bool? = nil, rpID: String = "example.com",
        flags: UInt8 = goodFlags, signCount: UInt32 = 0, coseKey: CBORItem? = nil,
        attestation: SoftwareAuthenticator.Attestation = .none, statementAlg: Int64? = nil
    ) throws(WebAuthnFailure) -> VerifiedRegistration {
        let clientData = SoftwareAuthenticator.clientData(
            type: type, challenge: challenge, origin: origin, crossOrigin: crossOrigin)
        let authData = auth.authenticatorData(
            rpID: rpID, flags: flags, signCount: signCount, attested: flags & SoftwareAuthenticator.atFlag != 0,
            coseKey: coseKey)
        let object = auth.attestationObject(
            authData: authData, clientDataJSON: clientData, attestation: attestation, statementAlg: statementAlg)
        return try WebAuthn.verifyRegistration(
            clientDataJSON: clientData, attestationObject: object, expectedChallenge: Self.challenge, relyingParty: rp)
    }

    static func expectRefused(_ because: Comment, _ body: () throws(WebAuthnFailure) -> VerifiedRegistration) {
        do {
            let accepted = try body()
            Issue.record("accepted \(accepted): \(because)")
        } catch {
            #expect(error.kind == .invalidResponse, because)
        }
    }

    @Test(arguments: KeyKind.allCases)
    func acceptsNoneAndPackedSelfAttestation(kind: KeyKind) throws {
        let auth = Self.authenticator(kind)
        for (format, attestation) in [("none", SoftwareAuthenticator.Attestation.none), ("packed", .packedSelf)] {
            let result = try Self.register(auth, signCount: 3, attestation: attestation)
            #expect(result.credentialID == auth.credentialID)
            #expect(result.publicKey == auth.key.cose.encoded)
            #expect(result.algorithm == Int(auth.key.algorithm))
            #expect(result.signCount == 3)
            #expect(result.aaguid == auth.aaguid)
            #expect(!result.backupEligible && !result.backedUp)
            #expect(result.attestationFormat == format)
        }
    }

    @Test func acceptsSyncedPasskeysWithExtensionsAndOtherOrigins() throws {
        let auth = Self.authenticator(.es256)
        let flags = Self.goodFlags | SoftwareAuthenticator.beFlag | SoftwareAuthenticator.bsFlag
        let synced = try Self.register(auth, origin: "android:apk-key-hash:abc", flags: flags)
        #expect(synced.backupEligible && synced.backedUp)
        let eligible = try Self.register(
            auth, flags: Self.goodFlags | SoftwareAuthenticator.beFlag, attestation: .packedSelf)
        #expect(eligible.backupEligible && !eligible.backedUp)
        // Extensions after the credential key: the key's bytes end where its CBOR item ends.
        let clientData = SoftwareAuthenticator.clientData(
            type: "webauthn.create", challenge: Self.challenge, crossOrigin: false)
        let authData = auth.authenticatorData(
            flags: Self.goodFlags | SoftwareAuthenticator.edFlag, attested: true,
            extensions: .map([(.text("credProtect"), .int(2))]))
        let result = try WebAuthn.verifyRegistration(
            clientDataJSON: clientData,
            attestationObject: auth.attestationObject(authData: authData, clientDataJSON: clientData),
            expectedChallenge: Self.challenge, relyingParty: Self.rp)
        #expect(result.publicKey == auth.key.cose.encoded)
    }

    /// x5c leaves of each algorithm: the statement's alg names the leaf's key, which need not be the credential's.
    @Test(arguments: KeyKind.allCases)
    func acceptsPackedX5CWithTheSection821Leaf(kind: KeyKind) throws {
        let auth = Self.authenticator(.es256)
        let attestationKey = Self.authenticator(kind).key
        for aaguid in [nil, auth.aaguid] {
            let certificate = try SoftwareAuthenticator.attestationCertificate(for: attestationKey, aaguid: aaguid)
            let result = try Self.register(auth, attestation: .packedX5C(key: attestationKey, certificate: certificate))
            #expect(result.attestationFormat == "packed")
            #expect(result.algorithm == -7)
        }
    }

    @Test func refusesPackedX5CLeavesThatBreakSection821() throws {
        let auth = Self.authenticator(.es256)
        let key = TestCredentialKey.es256(P256.Signing.PrivateKey())
        let leaves: [(String, [UInt8])] = [
            (
                "OU not Authenticator Attestation",
                try SoftwareAuthenticator.attestationCertificate(for: key, organizationalUnit: "Other")
            ),
            ("a CA", try SoftwareAuthenticator.attestationCertificate(for: key, certificateAuthority: true)),
            (
                "another aaguid",
                try SoftwareAuthenticator.attestationCertificate(for: key, aaguid: Array(repeating: 1, count: 16))
            ),
        ]
        for (why, leaf) in leaves {
            Self.expectRefused("leaf \(why)") { () throws(WebAuthnFailure) in
                try Self.register(auth, attestation: .packedX5C(key: key, certificate: leaf))
            }
        }
        let good = try SoftwareAuthenticator.attestationCertificate(for: key)
        Self.expectRefused("signed by another key than the leaf's") { () throws(WebAuthnFailure) in
            try Self.register(auth, attestation: .packedX5C(key: .es256(P256.Signing.PrivateKey()), certificate: good))
        }
        Self.expectRefused("x5c statement alg not allowed") { () throws(WebAuthnFailure) in
            try Self.register(auth, attestation: .packedX5C(key: key, certificate: good), statementAlg: -35)
        }
        Self.expectRefused("leaf is not a certificate") { () throws(WebAuthnFailure) in
            try Self.register(auth, attestation: .packedX5C(key: key, certificate: [0x30, 0x03, 0x02, 0x01, 0x01]))
        }
    }

    @Test func refusesEachClientDataAndAuthenticatorDataCheck() throws {
        let auth = Self.authenticator(.es256)
        let up = SoftwareAuthenticator.upFlag, uv = SoftwareAuthenticator.uvFlag, at = SoftwareAuthenticator.atFlag
        let cases: [(Comment, () throws(WebAuthnFailure) -> VerifiedRegistration)] = [
            ("type webauthn.get", { () throws(WebAuthnFailure) in try Self.register(auth, type: "webauthn.get") }),
            (
                "another challenge",
                { () throws(WebAuthnFailure) in try Self.register(auth, challenge: Array(repeating: 8, count: 32)) }
            ),
            (
                "another origin",
                { () throws(WebAuthnFailure) in try Self.register(auth, origin: "https://evil.example") }
            ),
            (
                "origin differing by a slash",
                { () throws(WebAuthnFailure) in try Self.register(auth, origin: "https://example.com/") }
            ),
            ("crossOrigin true", { () throws(WebAuthnFailure) in try Self.register(auth, crossOrigin: true) }),
            ("another RP id", { () throws(WebAuthnFailure) in try Self.register(auth, rpID: "evil.example") }),
            ("UP missing", { () throws(WebAuthnFailure) in try Self.register(auth, flags: uv | at) }),
            ("UV missing", { () throws(WebAuthnFailure) in try Self.register(auth, flags: up | at) }),
            ("AT missing", { () throws(WebAuthnFailure) in try Self.register(auth, flags: up | uv) }),
            (
                "BS without BE",
                { () throws(WebAuthnFailure) in
                    try Self.register(auth, flags: Self.goodFlags | SoftwareAuthenticator.bsFlag)
                }
            ),
            (
                "packed self alg differing from the key's",
                { () throws(WebAuthnFailure) in
                    try Self.register(auth, attestation: .packedSelf, statementAlg: -257)
                }
            ),
        ]
        for (why, body) in cases { Self.expectRefused(why, body) }
    }

    @Test func refusesKeysOutsideTheAllowList() throws {
        let auth = Self.authenticator(.es256)
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        let x = CBORItem.bytes(Array(point[1..<33])), y = CBORItem.bytes(Array(point[33..<65]))
        let keys: [(Comment, CBORItem)] = [
            (
                "ES384 alg",
                .map([(.int(1), .int(2)), (.int(3), .int(-35)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), y)])
            ),
            ("no alg", .map([(.int(1), .int(2)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), y)])),
            (
                "ES256 on P-384",
                .map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(2)), (.int(-2), x), (.int(-3), y)])
            ),
            (
                "ES256 labelled OKP",
                .map([(.int(1), .int(1)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), y)])
            ),
            (
                "point off the curve",
                .map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), x)])
            ),
            (
                "short coordinate",
                .map([
                    (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes([1])),
                    (.int(-3), y),
                ])
            ),
            (
                "RSA 1024",
                .map([
                    (.int(1), .int(3)), (.int(3), .int(-257)),
                    (.int(-1), .bytes([0xC1] + Array(repeating: 0x55, count: 127))), (.int(-2), .bytes([1, 0, 1])),
                ])
            ),
            (
                "Ed448",
                .map([
                    (.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(7)),
                    (.int(-2), .bytes(Array(repeating: 1, count: 57))),
                ])
            ),
            ("not a map", .array([.int(1)])),
        ]
        for (why, key) in keys {
            Self.expectRefused(why) { () throws(WebAuthnFailure) in try Self.register(auth, coseKey: key) }
        }
    }

    @Test func refusesOtherFormatsAndMalformedObjects() throws {
        let auth = Self.authenticator(.es256)
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: Self.challenge)
        let authData = auth.authenticatorData(flags: Self.goodFlags, attested: true)
        func verify(_ object: CBORItem) throws(WebAuthnFailure) -> VerifiedRegistration {
            try WebAuthn.verifyRegistration(
                clientDataJSON: clientData, attestationObject: object.encoded, expectedChallenge: Self.challenge,
                relyingParty: Self.rp)
        }
        for fmt in ["tpm", "android-key", "apple", "fido-u2f", "android-safetynet"] {
            Self.expectRefused("format \(fmt)") { () throws(WebAuthnFailure) in
                try verify(
                    .map([
                        (.text("fmt"), .text(fmt)), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData)),
                    ]))
            }
        }
        Self.expectRefused("none with a statement") { () throws(WebAuthnFailure) in
            try verify(
                .map([
                    (.text("fmt"), .text("none")), (.text("attStmt"), .map([(.text("x"), .int(1))])),
                    (.text("authData"), .bytes(authData)),
                ]))
        }
        Self.expectRefused("no authData") { () throws(WebAuthnFailure) in
            try verify(.map([(.text("fmt"), .text("none")), (.text("attStmt"), .map([]))]))
        }
        Self.expectRefused("trailing bytes after the key") { () throws(WebAuthnFailure) in
            try verify(
                .map([
                    (.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
                    (.text("authData"), .bytes(authData + [0])),
                ]))
        }
        Self.expectRefused("trailing bytes after the object") { () throws(WebAuthnFailure) in
            try verify(
                .raw(
                    CBORItem.map([
                        (.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
                        (.text("authData"), .bytes(authData)),
                    ]).encoded + [0]))
        }
        var longID = auth
        longID.credentialID = Array(repeating: 1, count: 1024)
        Self.expectRefused("credential id of 1024 bytes") { () throws(WebAuthnFailure) in try Self.register(longID) }
        longID.credentialID = Array(repeating: 1, count: 1023)
        #expect(try Self.register(longID).credentialID.count == 1023)
    }

    @Test func readsTheChallengeBeforeVerification() throws {
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: Self.challenge)
        #expect(try WebAuthn.challenge(inClientDataJSON: clientData) == Self.challenge)
        for bad in [
            Array("not json".utf8), Array("[]".utf8), Array(#"{"type":"webauthn.get"}"#.utf8),
            SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: [], challengeText: "a+b/"),
            SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: [], challengeText: ""),
            Array(
                #"{"type":"webauthn.get","challenge":"AAAA","origin":"https://example.com","crossOrigin":"no"}"#.utf8),
        ] {
            #expect(throws: WebAuthnFailure.self) { try WebAuthn.challenge(inClientDataJSON: bad) }
        }
    }
}
