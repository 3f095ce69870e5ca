import Crypto
import CryptoExtras
import Foundation
import Testing
import X509

@testable import HearthAuth

/// Game Center through HearthAuth and the real `hearth` binary. GameKit does not exist on Linux, so the
/// credential `GameCenterAuthProvider.getCredential()` would build is made here, signed with a key whose
/// certificate a local server publishes in place of Apple's.
@Suite("Game Center")
struct GameCenterTests {
    @Test func aSignedPlayerSignsInThroughTheSDK() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        // Apple's certificate is issued to Apple Inc. under a root the server trusts: here a root made for the test.
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Hearth test Game Center root") }
        let root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(rootKey))
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
            issuer: rootName, subject: try DistinguishedName { OrganizationName("Apple Inc.") },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: .init(), issuerPrivateKey: .init(rootKey))
        let keys = try KeyServer(bodies: ["/public/gc.cer": Data(try certificate.serializeAsPEM().derBytes)])
        defer { keys.stop() }
        let server = try await TestServer(federation: [
            "gameCenter": [
                "bundleIds": ["com.example.game"], "publicKeyUrlPrefixes": [keys.base + "/public/"],
                "trustedRootCertificates": [try root.serializeAsPEM().pemString],
            ]
        ])
        let auth = server.makeAuth()

        func credential() throws -> AuthCredential {
            let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            let timestamp = UInt64(Date().timeIntervalSince1970 * 1000)
            var signed = Data("T:_player".utf8) + Data("com.example.game".utf8)
            withUnsafeBytes(of: timestamp.bigEndian) { signed.append(contentsOf: $0) }
            signed += salt
            return GameCenterAuthCredential(
                teamPlayerID: "T:_player", gamePlayerID: "G:_player",
                publicKeyURL: URL(string: keys.base + "/public/gc.cer")!,
                signature: try key.signature(for: signed, padding: .insecurePKCS1v1_5).rawRepresentation, salt: salt,
                timestamp: timestamp, displayName: "Player One")
        }

        let first = try await auth.signIn(with: try credential())
        #expect(first.additionalUserInfo?.isNewUser == true)
        #expect(first.additionalUserInfo?.providerID == GameCenterAuthProvider.id)
        #expect(first.user.providerData.map(\.providerID) == ["gc.apple.com"])
        #expect(try await first.user.getIDTokenResult().signInProvider == "gc.apple.com")
        try auth.signOut()
        let again = try await auth.signIn(with: try credential())
        #expect(again.user.uid == first.user.uid)
        #expect(again.additionalUserInfo?.isNewUser == false)
    }
}
