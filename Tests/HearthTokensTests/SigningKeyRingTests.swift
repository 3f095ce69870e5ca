import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import HearthTokens
import Synchronization
import Testing
import X509

@Suite struct SigningKeyRingTests {
    final class Clock: Sendable {
        let now = Mutex(Date())
        var auth: AuthClock { AuthClock { self.now.withLock { $0 } } }
        func advance(_ s: TimeInterval) { now.withLock { $0 += s } }
    }

    func store() throws -> SQLiteAuthStore {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString).sqlite")
            .path
        return try SQLiteAuthStore(path: path)
    }

    func sampleUser() -> UserRecord {
        UserRecord(projectID: "p", uid: "u1", email: "a@b.co", validSince: Date(), createdAt: Date())
    }

    @Test func firstKeyIsGeneratedOnceAndSharedByEveryProcess() async throws {
        let s = try store()
        let a = SigningKeyRing(store: s, kek: nil, clock: .system)
        let b = SigningKeyRing(store: s, kek: nil, clock: .system)
        try await a.load()
        try await b.load()
        #expect(try a.currentSigner().kid == b.currentSigner().kid)
        #expect(try await s.signingKeys().count == 1)
        #expect(a.x509JSON() == b.x509JSON())  // identical certificate bytes from every process
    }

    @Test func publishedCertificateCarriesTheSigningKey() async throws {
        let s = try store()
        let ring = SigningKeyRing(store: s, kek: nil, clock: .system)
        try await ring.load()
        let signer = try ring.currentSigner()
        let certificate = try Certificate(pemEncoded: signer.certificatePEM)
        #expect(certificate.publicKey == Certificate.PublicKey(signer.publicKey))
        let token = try IDTokenService(keyRing: ring).mint(
            user: sampleUser(), signInProvider: "password", authTime: Date(), lifetimeSeconds: 3600, now: Date())
        let parsed = try #require(JWS.parse(token))
        #expect(
            JWS.verifyRS256(
                parsed, key: try _RSA.Signing.PublicKey(pemRepresentation: signer.publicKey.pemRepresentation)))
    }

    @Test func rotationPublishesFirstAndSignsAfterTheLead() async throws {
        let s = try store()
        let clock = Clock()
        let ring = SigningKeyRing(store: s, kek: nil, clock: clock.auth, publishAfterRetirement: 7200)
        try await ring.load()
        let old = try ring.currentSigner().kid
        let new = try await ring.rotate(lead: 600)
        #expect(try ring.currentSigner().kid == old)
        #expect(Set(ring.publishedKeys().map(\.kid)) == [old, new])
        clock.advance(601)
        #expect(try ring.currentSigner().kid == new)
        #expect(Set(ring.publishedKeys().map(\.kid)) == [old, new])
        clock.advance(7200)
        #expect(ring.publishedKeys().map(\.kid) == [new])
    }

    @Test func aKeyRotatedByAnotherProcessVerifiesHereAtOnce() async throws {
        let s = try store()
        let here = SigningKeyRing(store: s, kek: nil, clock: .system)
        let elsewhere = SigningKeyRing(store: s, kek: nil, clock: .system)
        try await here.load()
        try await elsewhere.load()
        // A forged kid makes this process look in vain, just before the real rotation.
        #expect(await here.verificationKey(kid: "forged") == nil)
        let kid = try await elsewhere.rotate(lead: 0)
        // Many requests at once with the new kid: one shared reload finds it for all of them.
        let found = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { await here.verificationKey(kid: kid)?.kid } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(found == Array(repeating: kid, count: 20))
        #expect(try here.currentSigner().kid == kid)
        #expect(await here.verificationKey(kid: "forged") == nil)
    }

    @Test func keysAreEncryptedAtRestWithAKeyEncryptionKey() async throws {
        let s = try store()
        let kek = try KeyEncryptionKey(base64: Data(repeating: 7, count: 32).base64EncodedString())
        let ring = SigningKeyRing(store: s, kek: kek, clock: .system)
        try await ring.load()
        let stored = try #require(try await s.signingKeys().first)
        #expect(stored.encrypted)
        #expect(throws: (any Error).self) { try _RSA.Signing.PrivateKey(derRepresentation: stored.privateKey) }

        let withoutKEK = SigningKeyRing(store: s, kek: nil, clock: .system)
        await #expect(throws: (any Error).self) { try await withoutKEK.load() }
        let wrongKEK = SigningKeyRing(
            store: s, kek: try KeyEncryptionKey(base64: Data(repeating: 8, count: 32).base64EncodedString()),
            clock: .system)
        await #expect(throws: (any Error).self) { try await wrongKEK.load() }
        #expect(throws: (any Error).self) { try KeyEncryptionKey(base64: "c2hvcnQ=") }
    }

    @Test func mintedClaimsCarryProfileAndCustomClaims() async throws {
        let s = try store()
        let ring = SigningKeyRing(store: s, kek: nil, clock: .system)
        try await ring.load()
        var user = sampleUser()
        user.displayName = "Ada"
        user.photoURL = "https://x/p.png"
        user.phoneNumber = "+15555550100"
        user.customClaims = #"{"role":"admin","sub":"forbidden-override"}"#
        let auth = Date(timeIntervalSince1970: 1_700_000_000)
        let now = Date(timeIntervalSince1970: 1_700_000_100)
        let token = try IDTokenService(keyRing: ring).mint(
            user: user, signInProvider: "password", authTime: auth, lifetimeSeconds: 3600, now: now)
        let claims = try #require(JWS.parse(token)).payload
        #expect(claims["role"] == "admin")
        #expect(claims["sub"] == "u1")
        #expect(claims["name"] == "Ada")
        #expect(claims["picture"] == "https://x/p.png")
        #expect(claims["phone_number"] == "+15555550100")
        #expect(claims["auth_time"] == 1_700_000_000)
        #expect(claims["iat"] == 1_700_000_100)
        #expect(claims["exp"] == 1_700_003_700)
        #expect(claims["firebase"]?["identities"] == ["email": ["a@b.co"], "phone": ["+15555550100"]])
    }

    @Test func refreshTokenSealOpensOnlyWithTheSameToken() throws {
        let key = RefreshTokenKey(familyID: SecureRandom.system.timeOrderedID(randomBytes: 12), generation: 0)
        let a = RefreshTokenCodec.generate(random: .system, key: key)
        let b = RefreshTokenCodec.generate(random: .system, key: key.successor)
        #expect(RefreshTokenCodec.shape(of: a) == .keyed(key))
        #expect(RefreshTokenCodec.shape(of: b) == .keyed(key.successor))
        let sealed = try RefreshTokenCodec.seal(successor: b, under: a)
        #expect(RefreshTokenCodec.open(sealed: sealed, under: a) == b)
        #expect(RefreshTokenCodec.open(sealed: sealed, under: b) == nil)
        #expect(RefreshTokenCodec.hash(a) != RefreshTokenCodec.hash(b))
    }

    /// A token names where it is stored; one issued before tokens did (`hrt1_`) is still recognised, and anything
    /// else, however close, is not a refresh token.
    @Test func refreshTokenShapes() {
        let secret = String(repeating: "A", count: 42) + "_"
        #expect(
            RefreshTokenCodec.shape(of: "hrt2_0001f-x_.12.\(secret)")
                == .keyed(RefreshTokenKey(familyID: "0001f-x_", generation: 12)))
        #expect(RefreshTokenCodec.shape(of: "hrt1_\(secret)") == .legacy)
        for invalid in [
            "", "hrt1_", "hrt1_\(secret)A", "hrt1_\(secret.dropLast())=", "hrt3_f.0.\(secret)", "hrt2_f.0.\(secret)A",
            "hrt2_.0.\(secret)", "hrt2_f..\(secret)", "hrt2_f.-1.\(secret)", "hrt2_f.0x1.\(secret)",
            "hrt2_f.0.1.\(secret)", "hrt2_f/g.0.\(secret)", "hrt2_f.9999999999999999999.\(secret)",
            "hrt2_\(String(repeating: "f", count: 65)).0.\(secret)", "hrt2_fé.0.\(secret)",
        ] {
            #expect(RefreshTokenCodec.shape(of: invalid) == .invalid, "\(invalid)")
        }
    }

    /// The sealing key stays HKDF-SHA256 of the presented token (written out on SHA-256 in the codec, compared here
    /// with swift-crypto's HKDF): a successor sealed by a server before an upgrade must open after it (a racing
    /// refresh within the grace window is answered with it), and one sealed after it must open before.
    @Test func refreshTokenSealKeyIsHKDF() throws {
        for round in 0..<20 {
            let key = RefreshTokenKey(familyID: SecureRandom.system.timeOrderedID(randomBytes: 12), generation: 7)
            // Tokens issued before they named their key are presented too, and are shorter.
            let token =
                round % 4 == 0
                ? "hrt1_" + SecureRandom.system.token(bytes: 32) : RefreshTokenCodec.generate(random: .system, key: key)
            let successor = RefreshTokenCodec.generate(random: .system, key: key.successor)
            let hkdf = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: Array(token.utf8)), info: Array("hearth refresh successor".utf8),
                outputByteCount: 32)
            let before = try #require(try AES.GCM.seal(Array(successor.utf8), using: hkdf).combined)
            #expect(RefreshTokenCodec.open(sealed: Array(before), under: token) == successor)
            let now = try AES.GCM.SealedBox(combined: RefreshTokenCodec.seal(successor: successor, under: token))
            #expect(try AES.GCM.open(now, using: hkdf) == Data(successor.utf8))
        }
    }
}
