import Foundation

/// The hash settings of a Firebase user import (`accounts:batchCreate`, `firebase auth:import`,
/// `hearth users import`): one algorithm and its parameters for a whole batch, applied to each user's
/// `passwordHash` and `salt`. Importing never rehashes; the stored hash keeps every parameter, so the user's
/// first sign-in verifies it and upgrades it to Hearth's native scheme.
public struct PasswordHashImport: Sendable, Equatable {
    /// Firebase's `hashAlgorithm` names.
    public enum Algorithm: String, Sendable, CaseIterable {
        case scrypt = "SCRYPT"
        case standardScrypt = "STANDARD_SCRYPT"
        case bcrypt = "BCRYPT"
        case pbkdfSHA1 = "PBKDF_SHA1"
        case pbkdf2SHA256 = "PBKDF2_SHA256"
        case hmacSHA512 = "HMAC_SHA512"
        case hmacSHA256 = "HMAC_SHA256"
        case hmacSHA1 = "HMAC_SHA1"
        case hmacMD5 = "HMAC_MD5"
        case md5 = "MD5"
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    public var algorithm: Algorithm
    /// SCRYPT and HMAC_*: the key.
    public var signerKey: [UInt8]
    /// SCRYPT: appended to each salt.
    public var saltSeparator: [UInt8]
    /// SCRYPT: r; PBKDF*, MD5, SHA*: iterations.
    public var rounds: Int
    /// SCRYPT: log2 N.
    public var memoryCost: Int
    /// STANDARD_SCRYPT: N itself (a power of two), r, p and the derived length.
    public var cpuMemCost: Int
    public var blockSize: Int
    public var parallelization: Int
    public var derivedKeyLength: Int
    /// HMAC_*, MD5, SHA*: whether the salt goes before the password. Firebase's default depends on the algorithm.
    public var order: SaltOrder?

    public init(
        algorithm: Algorithm, signerKey: [UInt8] = [], saltSeparator: [UInt8] = [], rounds: Int = 0,
        memoryCost: Int = 0, cpuMemCost: Int = 0, blockSize: Int = 0, parallelization: Int = 0,
        derivedKeyLength: Int = 0, order: SaltOrder? = nil
    ) {
        self.algorithm = algorithm
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
        self.cpuMemCost = cpuMemCost
        self.blockSize = blockSize
        self.parallelization = parallelization
        self.derivedKeyLength = derivedKeyLength
        self.order = order
    }

    /// Checks the batch-wide parameters once, with the Admin SDKs' error codes, before any user is looked at.
    public func validate() throws(AuthError) {
        switch algorithm {
        case .scrypt:
            if signerKey.isEmpty { throw AuthError(.invalidHashKey, "SCRYPT requires a signer key.") }
            if !(1...8).contains(rounds) { throw AuthError(.invalidHashRounds, "SCRYPT rounds must be 1 to 8.") }
            if !(1...14).contains(memoryCost) {
                throw AuthError(.invalidHashMemoryCost, "SCRYPT memory cost must be 1 to 14.")
            }
        case .standardScrypt:
            guard cpuMemCost > 1, cpuMemCost & (cpuMemCost - 1) == 0 else {
                throw AuthError(.invalidHashMemoryCost, "STANDARD_SCRYPT memory cost must be a power of two.")
            }
            if blockSize < 1 { throw AuthError(.invalidHashBlockSize) }
            if parallelization < 1 { throw AuthError(.invalidHashParallelization) }
            if !PasswordHash.derivedLengths.contains(derivedKeyLength) {
                throw AuthError(.invalidHashDerivedKeyLength)
            }
        case .bcrypt:
            break
        case .pbkdfSHA1, .pbkdf2SHA256:
            if !(0...120_000).contains(rounds) { throw AuthError(.invalidHashRounds, "Rounds must be 0 to 120000.") }
        case .hmacSHA512, .hmacSHA256, .hmacSHA1, .hmacMD5:
            if signerKey.isEmpty { throw AuthError(.invalidHashKey, "\(algorithm.rawValue) requires a key.") }
        case .md5:
            if !(0...8192).contains(rounds) { throw AuthError(.invalidHashRounds, "Rounds must be 0 to 8192.") }
        case .sha1, .sha256, .sha512:
            if !(1...8192).contains(rounds) { throw AuthError(.invalidHashRounds, "Rounds must be 1 to 8192.") }
        }
    }

    /// The stored form of one user's imported hash; nil when the hash or salt cannot be what this algorithm makes.
    public func passwordHash(hash: [UInt8], salt: [UInt8]) -> PasswordHash? {
        let made: PasswordHash? =
            switch algorithm {
            case .scrypt:
                .firebaseScrypt(
                    FirebaseScryptParameters(
                        signerKey: signerKey, saltSeparator: saltSeparator, rounds: rounds, memoryCost: memoryCost),
                    salt: salt, hash: hash)
            case .standardScrypt:
                .standardScrypt(
                    ScryptParameters(logN: cpuMemCost.trailingZeroBitCount, r: blockSize, p: parallelization),
                    salt: salt, hash: hash)
            case .bcrypt:
                BcryptHash(String(decoding: hash, as: UTF8.self)).map(PasswordHash.bcrypt)
            case .pbkdfSHA1: .pbkdf2(.sha1, rounds: rounds, salt: salt, hash: hash)
            case .pbkdf2SHA256: .pbkdf2(.sha256, rounds: rounds, salt: salt, hash: hash)
            case .hmacSHA512: hmac(.sha512, hash: hash, salt: salt)
            case .hmacSHA256: hmac(.sha256, hash: hash, salt: salt)
            case .hmacSHA1: hmac(.sha1, hash: hash, salt: salt)
            case .hmacMD5: hmac(.md5, hash: hash, salt: salt)
            case .md5: digest(.md5, hash: hash, salt: salt)
            case .sha1: digest(.sha1, hash: hash, salt: salt)
            case .sha256: digest(.sha256, hash: hash, salt: salt)
            case .sha512: digest(.sha512, hash: hash, salt: salt)
            }
        guard let made, made.isValid else { return nil }
        return made
    }

    // Firebase's defaults when no order is given: HMAC keys the password then the salt, plain digests
    // hash the salt first (auth.spec.ts in firebase-admin-node and the Go SDK's integration tests).
    private func hmac(_ d: HashDigest, hash: [UInt8], salt: [UInt8]) -> PasswordHash {
        .hmac(d, key: signerKey, order: order ?? .passwordFirst, salt: salt, hash: hash)
    }

    private func digest(_ d: HashDigest, hash: [UInt8], salt: [UInt8]) -> PasswordHash {
        .digest(d, rounds: rounds, order: order ?? .saltFirst, salt: salt, hash: hash)
    }

    /// Firebase's `passwordHashOrder` values.
    public static func order(named name: String) -> SaltOrder? {
        switch name {
        case "SALT_AND_PASSWORD": .saltFirst
        case "PASSWORD_AND_SALT": .passwordFirst
        default: nil
        }
    }

}

extension PasswordHash {
    /// The hash and salt bytes as Firebase exports them (`passwordHash`, `salt`); the parameters to verify them
    /// are per algorithm and travel separately (`PasswordHashImport`), or whole in `encoded`.
    public var exportedBytes: (hash: [UInt8], salt: [UInt8]) {
        switch self {
        case .scrypt(_, let salt, let hash), .firebaseScrypt(_, let salt, let hash),
            .standardScrypt(_, let salt, let hash),
            .pbkdf2(_, _, let salt, let hash), .hmac(_, _, _, let salt, let hash), .digest(_, _, _, let salt, let hash):
            (hash, salt)
        case .bcrypt(let bcrypt):
            (Array(bcrypt.encoded.utf8), [])
        }
    }
}
