import Crypto
import CryptoExtras
import Foundation
import HearthCore
import Hummingbird
import Testing
import X509

/// `accounts:signInWithGameCenter` against a real local server holding "Apple's" signing certificate: GameKit's
/// signature is made in the test with the matching RSA key, over what GameKit signs.
@Suite("Game Center sign-in")
struct GameCenterSignInTests {
    static let bundleID = "com.example.game"
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static func certificateDER() throws -> [UInt8] {
        let name = try DistinguishedName { CommonName("Apple Game Center test key") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption, extensions: .init(),
            issuerPrivateKey: .init(key))
        return try certificate.serializeAsPEM().derBytes
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
        let der = try Self.certificateDER()
        let router = Router()
        router.get("/public/gc-prod-10.cer") { _, _ in
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: der)))
        }
        try await serveOnLoopback(router) { base in
            let keyURL = base + "/public/gc-prod-10.cer"
            let h = try await Harness {
                var settings = GameCenterSettings(bundleIds: [Self.bundleID])
                settings.publicKeyUrlPrefixes = [base + "/public/"]
                $0.federation.gameCenter = settings
            }
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
                #expect(linked.string("localId") == account.string("localId"))
                let lookup = try await c.post("/v1/accounts:lookup", ["idToken": .string(idToken)])
                let providers = lookup["users"]?[0]?["providerUserInfo"]?.arrayValue?.compactMap {
                    $0["providerId"]?.stringValue
                }
                #expect(providers?.contains("gc.apple.com") == true)
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
