import Foundation

/// The text a `PasswordHash` is stored as: PHC string format (`$<id>$<name>=<value>,…$<field>$…`), byte fields in
/// standard base64 without padding (an empty field is empty bytes); bcrypt keeps its own modular-crypt form.
///
/// ```
/// $scrypt$ln=14,r=8,p=1$<salt>$<hash>                                            native
/// $firebase-scrypt$rounds=8,mem=14$<salt>$<salt separator>$<signer key>$<hash>   SCRYPT
/// $firebase-standard-scrypt$ln=10,r=8,p=16$<salt>$<hash>                         STANDARD_SCRYPT (N = 2^ln)
/// $2b$10$<22-character salt><31-character hash>                                  BCRYPT ($2a$, $2b$ or $2y$)
/// $firebase-pbkdf-sha1$rounds=1000$<salt>$<hash>                                 PBKDF_SHA1
/// $firebase-pbkdf2-sha256$rounds=100000$<salt>$<hash>                            PBKDF2_SHA256
/// $firebase-hmac-sha256$order=password-first$<key>$<salt>$<hash>                 HMAC_MD5, _SHA1, _SHA256, _SHA512
/// $firebase-sha256$rounds=1,order=salt-first$<salt>$<hash>                       MD5, SHA1, SHA256, SHA512
/// ```
///
/// Parameter names must appear exactly once each; decoding accepts only `isValid` hashes, and `encoded` of what
/// decodes gives a string that decodes to the same hash. The Firebase schemes keep every parameter of the import,
/// with the salt order resolved, so a hash can be exported again.
extension PasswordHash {
    /// The text stored in the database.
    public var encoded: String {
        let b64 = Self.base64
        return switch self {
        case .scrypt(let p, let salt, let hash):
            "$scrypt$ln=\(p.logN),r=\(p.r),p=\(p.p)$\(b64(salt))$\(b64(hash))"
        case .firebaseScrypt(let p, let salt, let hash):
            "$firebase-scrypt$rounds=\(p.rounds),mem=\(p.memoryCost)$\(b64(salt))$\(b64(p.saltSeparator))$\(b64(p.signerKey))$\(b64(hash))"
        case .standardScrypt(let p, let salt, let hash):
            "$firebase-standard-scrypt$ln=\(p.logN),r=\(p.r),p=\(p.p)$\(b64(salt))$\(b64(hash))"
        case .bcrypt(let bcrypt):
            bcrypt.encoded
        case .pbkdf2(let digest, let rounds, let salt, let hash):
            "$firebase-\(digest.rawValue)$rounds=\(rounds)$\(b64(salt))$\(b64(hash))"
        case .hmac(let digest, let key, let order, let salt, let hash):
            "$firebase-hmac-\(digest.rawValue)$order=\(order.rawValue)$\(b64(key))$\(b64(salt))$\(b64(hash))"
        case .digest(let digest, let rounds, let order, let salt, let hash):
            "$firebase-\(digest.rawValue)$rounds=\(rounds),order=\(order.rawValue)$\(b64(salt))$\(b64(hash))"
        }
    }

    /// Parses stored text; nil when it is not a valid hash Hearth understands.
    public init?(encoded: String) {
        if encoded.hasPrefix("$2") {
            guard let bcrypt = BcryptHash(encoded) else { return nil }
            self = .bcrypt(bcrypt)
            return
        }
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[0].isEmpty else { return nil }
        let decoded = fields.dropFirst(3).map(Self.unbase64)
        guard !decoded.contains(nil),
            let hash = Self.decode(scheme: fields[1], parameters: fields[2], bytes: decoded.compactMap { $0 }),
            hash.isValid
        else { return nil }
        self = hash
    }

    private static func decode(scheme: Substring, parameters: Substring, bytes b: [[UInt8]]) -> PasswordHash? {
        let firebase = scheme.hasPrefix("firebase-") ? String(scheme.dropFirst("firebase-".count)) : ""
        if scheme == "scrypt", b.count == 2, let p = scryptParameters(parameters) {
            return .scrypt(p, salt: b[0], hash: b[1])
        }
        if firebase == "standard-scrypt", b.count == 2, let p = scryptParameters(parameters) {
            return .standardScrypt(p, salt: b[0], hash: b[1])
        }
        if firebase == "scrypt", b.count == 4, let v = integers(parameters, ["rounds", "mem"]) {
            let p = FirebaseScryptParameters(signerKey: b[2], saltSeparator: b[1], rounds: v[0], memoryCost: v[1])
            return .firebaseScrypt(p, salt: b[0], hash: b[3])
        }
        if let digest = PBKDF2Digest(rawValue: firebase), b.count == 2, let v = integers(parameters, ["rounds"]) {
            return .pbkdf2(digest, rounds: v[0], salt: b[0], hash: b[1])
        }
        if firebase.hasPrefix("hmac-"), let digest = HashDigest(rawValue: String(firebase.dropFirst("hmac-".count))),
            b.count == 3, let v = values(parameters, ["order"]), let order = SaltOrder(rawValue: String(v[0]))
        {
            return .hmac(digest, key: b[0], order: order, salt: b[1], hash: b[2])
        }
        if let digest = HashDigest(rawValue: firebase), b.count == 2, let v = values(parameters, ["rounds", "order"]),
            let rounds = Int(v[0]), let order = SaltOrder(rawValue: String(v[1]))
        {
            return .digest(digest, rounds: rounds, order: order, salt: b[0], hash: b[1])
        }
        return nil
    }

    private static func scryptParameters(_ text: Substring) -> ScryptParameters? {
        integers(text, ["ln", "r", "p"]).map { ScryptParameters(logN: $0[0], r: $0[1], p: $0[2]) }
    }

    private static func integers(_ text: Substring, _ names: [String]) -> [Int]? {
        guard let values = values(text, names) else { return nil }
        let numbers = values.compactMap { Int($0) }
        return numbers.count == names.count ? numbers : nil
    }

    /// The values of `name=value,…` in the order of `names`; nil unless each name appears exactly once and nothing else does.
    private static func values(_ text: Substring, _ names: [String]) -> [Substring]? {
        var values: [Substring: Substring] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, values.updateValue(parts[1], forKey: parts[0]) == nil else { return nil }
        }
        let ordered = names.compactMap { values[Substring($0)] }
        return ordered.count == names.count && values.count == names.count ? ordered : nil
    }

    private static func base64(_ bytes: [UInt8]) -> String { Base64.encode(bytes, padded: false) }

    private static func unbase64(_ text: Substring) -> [UInt8]? {
        // Stored hashes are written unpadded in the standard alphabet; nothing else is accepted.
        guard
            !text.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "=") }
            )
        else { return nil }
        return Base64.decode(text)
    }
}
