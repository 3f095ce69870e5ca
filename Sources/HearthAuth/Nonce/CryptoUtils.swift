import Crypto
import Foundation

/// The nonce helpers Sign in with Apple and Facebook Limited Login need, on every platform: send
/// `sha256(nonce)` to the provider and the raw nonce in the credential.
public enum CryptoUtils {
    /// The characters FirebaseAuth's sample nonce uses.
    static let charset = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVXYZabcdefghijklmnopqrstuvwxyz-._")

    /// A random string of `length` characters from the system CSPRNG.
    public static func randomNonceString(length: Int = 32) throws -> String {
        guard length > 0 else { throw AuthErrorCode.internalError.error(message: "A nonce needs a positive length.") }
        var generator = SystemRandomNumberGenerator()
        // `randomElement(using:)` draws uniformly, with no modulo bias toward the first characters.
        return String((0..<length).map { _ in charset.randomElement(using: &generator)! })
    }

    /// The lowercase hex SHA-256 of the string's UTF-8 bytes.
    public static func sha256(_ input: String) -> String {
        SHA256.hash(data: Data(input.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
