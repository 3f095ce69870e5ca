import Foundation
import HearthAuth
import Testing

@Suite("Nonce helpers")
struct NonceTests {
    @Test func randomNoncesHaveTheLengthAndAlphabetAndDiffer() throws {
        let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVXYZabcdefghijklmnopqrstuvwxyz-._")
        let nonces = try (0..<200).map { _ in try CryptoUtils.randomNonceString() }
        #expect(nonces.allSatisfy { $0.count == 32 && $0.allSatisfy(allowed.contains) })
        #expect(Set(nonces).count == nonces.count)
        #expect(try CryptoUtils.randomNonceString(length: 7).count == 7)
        #expect(throws: NSError.self) { try CryptoUtils.randomNonceString(length: 0) }
    }

    @Test func sha256IsLowercaseHex() {
        #expect(CryptoUtils.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(CryptoUtils.sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
