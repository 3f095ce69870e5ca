import Crypto
import CryptoExtras

/// Project-wide parameters of Firebase's modified scrypt (`SCRYPT`), as the Firebase console shows them
/// under "Password hash parameters".
public struct FirebaseScryptParameters: Sendable, Equatable {
    /// `base64_signer_key`: the plaintext that the derived key encrypts.
    public var signerKey: [UInt8]
    /// `base64_salt_separator`: appended to each user's salt.
    public var saltSeparator: [UInt8]
    /// `rounds`: scrypt's block size r, 1–8.
    public var rounds: Int
    /// `mem_cost`: log2 of scrypt's N, 1–14.
    public var memoryCost: Int

    public init(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int) {
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }

    /// Firebase's ranges (firebase-tools `accountImporter.ts`, the Admin SDKs' `UserImportHash.scrypt`).
    var isValid: Bool { !signerKey.isEmpty && (1...8).contains(rounds) && (1...14).contains(memoryCost) }

    /// The stored hash for `password`: AES-256-CTR, zero counter block, of the signer key under the first 32 bytes
    /// of scrypt(password, salt ‖ separator, N = 2^memoryCost, r = rounds, p = 1, 64 bytes) (github.com/firebase/scrypt).
    func hash(_ password: [UInt8], salt: [UInt8]) -> [UInt8]? {
        guard
            let derived = try? KDF.Scrypt.deriveKey(
                from: password, salt: salt + saltSeparator, outputByteCount: 64, rounds: 1 << memoryCost,
                blockSize: rounds, parallelism: 1),
            let counter = try? AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)),
            let sealed = try? AES._CTR.encrypt(
                signerKey, using: SymmetricKey(data: derived.withUnsafeBytes { Array($0.prefix(32)) }), nonce: counter)
        else { return nil }
        return Array(sealed)
    }
}

/// The digest inside Firebase's `MD5`, `SHA1`, `SHA256`, `SHA512` and `HMAC_*` import algorithms.
public enum HashDigest: String, Sendable, CaseIterable {
    case md5, sha1, sha256, sha512

    var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    func hash(_ bytes: [UInt8]) -> [UInt8] {
        switch self {
        case .md5: Array(Insecure.MD5.hash(data: bytes))
        case .sha1: Array(Insecure.SHA1.hash(data: bytes))
        case .sha256: Array(SHA256.hash(data: bytes))
        case .sha512: Array(SHA512.hash(data: bytes))
        }
    }

    func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let key = SymmetricKey(data: key)
        return switch self {
        case .md5: Array(HMAC<Insecure.MD5>.authenticationCode(for: message, using: key))
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
    }
}

/// The PRF of Firebase's two PBKDF2 import algorithms; the raw value is the algorithm's name, lower-cased.
public enum PBKDF2Digest: String, Sendable, CaseIterable {
    /// `PBKDF_SHA1`: PBKDF2 with HMAC-SHA1.
    case sha1 = "pbkdf-sha1"
    /// `PBKDF2_SHA256`: PBKDF2 with HMAC-SHA256.
    case sha256 = "pbkdf2-sha256"

    /// PBKDF2(password, salt, rounds, `length` bytes). Firebase accepts 0 rounds, which RFC 8018 does not define
    /// and Firebase does not document; it is taken as 1, what BoringSSL computes for 0 before reporting an error.
    func derive(_ password: [UInt8], salt: [UInt8], rounds: Int, length: Int) -> [UInt8]? {
        let function: KDF.Insecure.PBKDF2.HashFunction = self == .sha1 ? .insecureSHA1 : .sha256
        let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: password, salt: salt, using: function, outputByteCount: length, unsafeUncheckedRounds: max(rounds, 1))
        return key?.withUnsafeBytes { Array($0) }
    }
}

/// Which of salt and password comes first in the hashed message (Firebase's `passwordHashOrder`).
public enum SaltOrder: String, Sendable, CaseIterable {
    /// `SALT_AND_PASSWORD`
    case saltFirst = "salt-first"
    /// `PASSWORD_AND_SALT`
    case passwordFirst = "password-first"

    func join(salt: [UInt8], password: [UInt8]) -> [UInt8] {
        self == .saltFirst ? salt + password : password + salt
    }
}
