import Crypto
import CryptoExtras
import Foundation
import HearthCore
import Hummingbird
import Synchronization
import Testing
import X509

/// `accounts:signInWithGameCenter` against a real local server holding "Apple's" signing certificate: GameKit's
/// signature is made in the test with the matching RSA key, over what GameKit signs. The certificate is issued to
/// Apple Inc. by an intermediate CA (found through its Authority Information Access, as Apple's are) under a root
/// made per run, which the project trusts in place of Apple's.
@Suite("Game Center sign-in")
struct GameCenterSignInTests {
    static let bundleID = "com.example.game"
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    /// A root, an intermediate whose certificate is served at `<base>/ca/intermediate.cer`, and leaves.
    struct TestCA {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let root: Certificate
        let intermediate: Certificate
        let base: String

        init(base: String) throws {
            self.base = base
            let rootName = try DistinguishedName { CommonName("Hearth test Game Center root") }
            let intermediateName = try DistinguishedName { CommonName("Hearth test code-signing CA") }
            let ca = try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }
            root = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
                notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
                issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256, extensions: ca,
                issuerPrivateKey: .init(rootKey))
            intermediate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
                issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256, extensions: ca,
                issuerPrivateKey: .init(rootKey))
        }

        var rootPEM: String { get throws { try root.serializeAsPEM().pemString } }

        /// A leaf for `GameCenterSignInTests.key`, issued to `organization` by the intermediate.
        func leafDER(organization: String = "Apple Inc.") throws -> [UInt8] {
            let subject = try DistinguishedName {
                CountryName("US")
                OrganizationName(organization)
                CommonName(organization)
            }
            let aia = AuthorityInformationAccess([
                .init(method: .issuingCA, location: .uniformResourceIdentifier(base + "/ca/intermediate.cer"))
            ])
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(GameCenterSignInTests.key.publicKey),
                notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
                issuer: intermediate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(KeyUsage(digitalSignature: true))
                    aia
                }, issuerPrivateKey: .init(intermediateKey))
            return try certificate.serializeAsPEM().derBytes
        }
    }

    /// Files by path, filled in once the server's base URL is known.
    final class Files: Sendable {
        private let files = Mutex<[String: [UInt8]]>([:])
        func set(_ map: [String: [UInt8]]) { files.withLock { $0 = map } }
        subscript(path: String) -> [UInt8]? { files.withLock { $0[path] } }
    }

    /// A server of certificates.
    static func certificateServer(_ files: Files) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("**") { request, _ -> Response in
            if request.uri.path == "/public/moved.cer" {
                return Response(status: .found, headers: [.location: "/elsewhere/gc.cer"])
            }
            guard let bytes = files[request.uri.path] else { return Response(status: .notFound) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        return router
    }

    /// Self-signed, as the certificate anyone can make and put on a host the prefix allows.
    static func selfSignedDER() throws -> [UInt8] {
        let name = try DistinguishedName {
            OrganizationName("Apple Inc.")
            CommonName("Apple Inc.")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption, extensions: .init(),
            issuerPrivateKey: .init(key))
        return try certificate.serializeAsPEM().derBytes
    }

    static func harness(base: String, ca: TestCA) async throws -> Harness {
        let rootPEM = try ca.rootPEM
        // A live clock: the bodies are signed at `Date()`, and a frozen one fell over a minute behind them once under
        // the whole suite's load (the server then refused a fresh signature as signed in its future).
        return try await Harness(liveClock: true) {
            var settings = GameCenterSettings(bundleIds: [Self.bundleID])
            settings.publicKeyUrlPrefixes = [base + "/public/"]
            settings.trustedRootCertificates = [rootPEM]
            $0.federation.gameCenter = settings
        }
    }

    /// The request body GameKit's values make, signed for `bundleID` at `date`.
    static func body(
        keyURL: String, player: String = "T:_team_player_1", bundleID: String = bundleID, date: Date = Date(),
        idToken: String? = nil
    ) throws -> JSONValue {
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let timestamp = UInt64(date.timeIntervalSince1970 * 1000)
        let signed =
            Array(player.utf8) + Array(bundleID.utf8) + withUnsafeBytes(of: timestamp.bigEndian) { Array($0) } + salt
        let signature = try key.signature(for: signed, padding: .insecurePKCS1v1_5).rawRepresentation
        var fields: [String: JSONValue] = [
            "publicKeyUrl": .string(keyURL), "signature": .string(Data(signature).base64EncodedString()),
            "salt": .string(Data(salt).base64EncodedString()), "timestamp": .number(Double(timestamp)),
            "teamPlayerId": .string(player), "gamePlayerId": "G:_game_player_1", "displayName": "Player One",
        ]
        if let idToken { fields["idToken"] = .string(idToken) }
        return .object(fields)
    }

    @Test func aSignedPlayerSignsUpThenSignsInAndCanBeLinked() async throws {
        let files = Files()
        try await serveOnLoopback(Self.certificateServer(files)) { base in
            let ca = try TestCA(base: base)
            let leaf = try ca.leafDER()
            let intermediate = try ca.intermediate.serializeAsPEM().derBytes
            files.set(["/public/gc-prod-10.cer": leaf, "/ca/intermediate.cer": intermediate])
            let keyURL = base + "/public/gc-prod-10.cer"
            let h = try await Self.harness(base: base, ca: ca)
            try await h.run { (c: Client) async throws in
                let path = "/v1/accounts:signInWithGameCenter"
                let first = try await c.post(path, try Self.body(keyURL: keyURL))
                #expect(first.status == 200)
                #expect(first["isNewUser"] == true)
                #expect(first.string("teamPlayerId") == "T:_team_player_1")
                #expect(first.string("displayName") == "Player One")
                let uid = try #require(first.string("localId"))
                #expect(first.string("idToken") != nil)

                let again = try await c.post(path, try Self.body(keyURL: keyURL))
                #expect(again.string("localId") == uid)
                #expect(again["isNewUser"] == false)

                // The same signature twice: a replay.
                let signed = try Self.body(keyURL: keyURL)
                #expect(try await c.post(path, signed).status == 200)
                #expect(try await c.post(path, signed).errorCode == "MISSING_OR_INVALID_NONCE")

                // Another game's signature, a key from elsewhere, a stale signature: refused.
                #expect(
                    try await c.post(path, try Self.body(keyURL: keyURL, bundleID: "com.other.game")).errorCode
                        == "INVALID_IDP_RESPONSE")
                #expect(
                    try await c.post(path, try Self.body(keyURL: "https://attacker.example/gc.cer")).errorCode
                        == "INVALID_IDP_RESPONSE")
                #expect(
                    try await c.post(path, try Self.body(keyURL: keyURL, date: Date().addingTimeInterval(-3600)))
                        .errorCode == "INVALID_IDP_RESPONSE")

                // Linking Game Center to an e-mail account.
                let account = try await c.signUp(email: "gamer@example.com", password: "correct horse")
                let idToken = try #require(account.string("idToken"))
                let linked = try await c.post(
                    path, try Self.body(keyURL: keyURL, player: "T:_team_player_2", idToken: idToken))
                #expect(linked.string("localId") == account.string("localId"), "\(linked.status) \(linked.json)")
                let lookup = try await c.post("/v1/accounts:lookup", ["idToken": .string(idToken)])
                let providers = lookup["users"]?[0]?["providerUserInfo"]?.arrayValue?.compactMap {
                    $0["providerId"]?.stringValue
                }
                #expect(providers?.contains("gc.apple.com") == true)
            }
        }
    }

    /// The attack: a certificate from an allowed prefix that is not Apple's (self-signed, another
    /// organization, another root), or one reached by a redirect out of the prefix, signs no one in.
    @Test func onlyACertificateIssuedToAppleUnderTheTrustedRootFromTheAllowedPrefixIsUsed() async throws {
        let files = Files()
        try await serveOnLoopback(Self.certificateServer(files)) { base in
            let ca = try TestCA(base: base)
            let stranger = try TestCA(base: base)
            files.set([
                "/ca/intermediate.cer": try ca.intermediate.serializeAsPEM().derBytes,
                "/public/self-signed.cer": try Self.selfSignedDER(),
                "/public/not-apple.cer": try ca.leafDER(organization: "Evil Games Ltd."),
                "/public/other-root.cer": try stranger.leafDER(),
                // Outside the prefix: a good certificate, reachable only through the redirect.
                "/elsewhere/gc.cer": try ca.leafDER(),
                "/public/good.cer": try ca.leafDER(),
            ])
            let h = try await Self.harness(base: base, ca: ca)
            try await h.run { (c: Client) async throws in
                let path = "/v1/accounts:signInWithGameCenter"
                for name in ["self-signed.cer", "not-apple.cer", "other-root.cer", "moved.cer"] {
                    let answer = try await c.post(path, try Self.body(keyURL: base + "/public/" + name))
                    #expect(answer.errorCode == "INVALID_IDP_RESPONSE", "\(name)")
                }
                // A backslash or credentials make browsers and Foundation read different hosts: refused unread.
                for url in [
                    base + "\\@evil.example/public/good.cer", "http://user@\(base.dropFirst(7))/public/good.cer",
                ] {
                    #expect(try await c.post(path, try Self.body(keyURL: url)).errorCode == "INVALID_IDP_RESPONSE")
                }
                #expect(
                    try await h.store.user(
                        projectID: h.projectID, providerID: "gc.apple.com", rawID: "T:_team_player_1")
                        == nil)
                let good = try await c.post(path, try Self.body(keyURL: base + "/public/good.cer"))
                #expect(good.status == 200, "\(good.json)")
            }
        }
    }

    @Test func aProjectWithoutGameCenterRefusesIt() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let answer = try await c.post(
                "/v1/accounts:signInWithGameCenter", try Self.body(keyURL: "https://static.gc.apple.com/public/x.cer"))
            #expect(answer.errorCode == "OPERATION_NOT_ALLOWED")
        }
    }
}
