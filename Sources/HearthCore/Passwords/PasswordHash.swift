import Crypto
import CryptoExtras

/// A stored password hash with everything needed to verify it.
///
/// Hearth creates only `.scrypt`, its native scheme. The other cases hold hashes imported from Firebase, one per
/// `hashAlgorithm` its user import accepts, with the parameters needed to verify them and to export them again.
/// Hearth only verifies those: a successful sign-in replaces them with a native hash (`needsUpgrade(to:)`).
/// Stored as text; the formats are in PasswordHash+Encoding.swift.
public enum PasswordHash: Sendable, Equatable {
    /// Hearth's native scheme: scrypt with its parameters.
    case scrypt(ScryptParameters, salt: [UInt8], hash: [UInt8])
    /// `SCRYPT`: Firebase's modified scrypt, with the project's parameters.
    case firebaseScrypt(FirebaseScryptParameters, salt: [UInt8], hash: [UInt8])
    /// `STANDARD_SCRYPT`: scrypt (RFC 7914) of password and salt, as long as the hash (Firebase's `dkLen`).
    case standardScrypt(ScryptParameters, salt: [UInt8], hash: [UInt8])
    /// `BCRYPT`.
    case bcrypt(BcryptHash)
    /// `PBKDF_SHA1`, `PBKDF2_SHA256`: PBKDF2 of password and salt, as long as the hash.
    case pbkdf2(PBKDF2Digest, rounds: Int, salt: [UInt8], hash: [UInt8])
    /// `HMAC_MD5`, `HMAC_SHA1`, `HMAC_SHA256`, `HMAC_SHA512`: HMAC keyed with the signer key over salt and password.
    /// Firebase's order when `passwordHashOrder` is unset is password first.
    case hmac(HashDigest, key: [UInt8], order: SaltOrder, salt: [UInt8], hash: [UInt8])
    /// `MD5`, `SHA1`, `SHA256`, `SHA512`: the digest of salt and password, digested again until applied `rounds`
    /// times (at least once). Firebase's order when `passwordHashOrder` is unset is salt first.
    case digest(HashDigest, rounds: Int, order: SaltOrder, salt: [UInt8], hash: [UInt8])

    static let scryptKeyLength = 32
    static let saltLength = 16

    /// Hashes `password` with Hearth's native scheme. Slow by design: never call on an event loop.
    public static func make(password: String, parameters: ScryptParameters, random: SecureRandom) -> PasswordHash {
        let salt = random.bytes(saltLength)
        // Parameters are validated on configuration; a failure here is a programming error.
        let hash = scrypt(Array(password.utf8), salt: salt, parameters, length: scryptKeyLength)!
        return .scrypt(parameters, salt: salt, hash: hash)
    }

    /// Whether `password` matches, compared in constant time. Slow by design. An invalid hash matches nothing.
    public func verify(_ password: String) -> Bool {
        guard isValid else { return false }
        let password = Array(password.utf8)
        let (actual, expected): ([UInt8]?, [UInt8]) =
            switch self {
            case .scrypt(let parameters, let salt, let hash):
                (Self.scrypt(password, salt: salt, parameters, length: hash.count), hash)
            case .firebaseScrypt(let parameters, let salt, let hash):
                // github.com/firebase/scrypt README; the rule itself is on FirebaseScryptParameters.hash.
                (parameters.hash(password, salt: salt), hash)
            case .standardScrypt(let parameters, let salt, let hash):
                // firebase-admin-node test/integration/auth.spec.ts, STANDARD_SCRYPT: scrypt(password, salt, N, r, p, dkLen).
                (Self.scrypt(password, salt: salt, parameters, length: hash.count), hash)
            case .bcrypt(let bcrypt):
                // auth.spec.ts, BCRYPT: the imported hash is the whole modular-crypt string, with no separate salt.
                (bcrypt.digest(password), bcrypt.hash)
            case .pbkdf2(let digest, let rounds, let salt, let hash):
                // auth.spec.ts, PBKDF2_SHA256: pbkdf2(password, salt, rounds, 64 bytes, sha256).
                (digest.derive(password, salt: salt, rounds: rounds, length: hash.count), hash)
            case .hmac(let digest, let key, let order, let salt, let hash):
                // auth.spec.ts, HMAC_SHA256 without an order: HMAC(key, password ‖ salt); admin-go integration tests for the order.
                (digest.hmac(key: key, message: order.join(salt: salt, password: password)), hash)
            case .digest(let digest, let rounds, let order, let salt, let hash):
                // auth.spec.ts, SHA256 (rounds 1) and MD5 (rounds 0) without an order: H(salt ‖ password); see iterated.
                (Self.iterated(digest, order.join(salt: salt, password: password), rounds: rounds), hash)
            }
        guard let actual else { return false }
        return ConstantTime.equals(actual, expected)
    }

    /// Whether a successful sign-in should replace this hash with a native one at `target` cost.
    public func needsUpgrade(to target: ScryptParameters) -> Bool {
        if case .scrypt(let parameters, _, _) = self { return parameters != target }
        return true
    }

    /// Whether the parameters are within Firebase's import ranges (within Hearth's own bounds where Firebase sets
    /// none) and the hash is as long as its scheme makes it. Only valid hashes decode.
    public var isValid: Bool {
        switch self {
        case .scrypt(let parameters, _, let hash):
            parameters.isSane && hash.count >= 16
        case .firebaseScrypt(let parameters, _, let hash):
            parameters.isValid && hash.count == parameters.signerKey.count
        case .standardScrypt(let parameters, _, let hash):
            Self.isImportable(parameters) && Self.derivedLengths.contains(hash.count)
        case .bcrypt:
            true
        case .pbkdf2(_, let rounds, _, let hash):
            // Firebase's range: firebase-tools accountImporter.ts and the Admin SDKs.
            (0...120_000).contains(rounds) && Self.derivedLengths.contains(hash.count)
        case .hmac(let digest, let key, _, _, let hash):
            !key.isEmpty && hash.count == digest.byteCount
        case .digest(let digest, let rounds, _, _, let hash):
            // Firebase's ranges (accountImporter.ts): MD5 0–8192, the SHAs 1–8192; MD5's hash is 32 hex digits.
            (digest == .md5 ? 0...8192 : 1...8192).contains(rounds)
                && hash.count == (digest == .md5 ? 2 * digest.byteCount : digest.byteCount)
        }
    }

    /// Hearth's bound on derived-key lengths; Firebase sets none.
    static let derivedLengths = 1...1024

    /// Hearth's bounds on imported scrypt parameters, which Firebase only requires to be non-negative: at most 1 GiB,
    /// N < 2^(16r) as RFC 7914 requires, and r ≤ 16 because swift-crypto gives BoringSSL a memory limit of
    /// 128·N·r·p plus one page, too little for a larger r when p = 1.
    static func isImportable(_ parameters: ScryptParameters) -> Bool {
        (1...20).contains(parameters.logN) && (1...16).contains(parameters.r) && (1...16).contains(parameters.p)
            && parameters.logN < 16 * parameters.r && parameters.memoryBytes <= 1 << 30
    }

    static func scrypt(_ password: [UInt8], salt: [UInt8], _ parameters: ScryptParameters, length: Int) -> [UInt8]? {
        let key = try? KDF.Scrypt.deriveKey(
            from: password, salt: salt, outputByteCount: length, rounds: 1 << parameters.logN,
            blockSize: parameters.r, parallelism: parameters.p)
        return key?.withUnsafeBytes { Array($0) }
    }

    /// `MD5`/`SHA*` import hashes. Firebase's integration tests (auth.spec.ts) fix one application: SHA256 with
    /// `rounds` 1 is the raw digest, MD5 with `rounds` 0 is the lower-case hex text of the digest. Further rounds
    /// digest the previous raw digest: Firebase does not document them, so that part is an assumption.
    static func iterated(_ digest: HashDigest, _ message: [UInt8], rounds: Int) -> [UInt8] {
        var value = digest.hash(message)
        for _ in 1..<max(rounds, 1) { value = digest.hash(value) }
        guard digest == .md5 else { return value }
        let hexDigits = Array("0123456789abcdef".utf8)
        return value.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] }
    }
}
