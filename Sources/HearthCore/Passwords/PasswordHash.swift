import Crypto
import CryptoExtras
import Foundation

/// A stored password hash with everything needed to verify it.
///
/// Encoded in PHC string format, `$scrypt$ln=14,r=8,p=1$<salt>$<hash>` (standard base64, no padding),
/// so the parameters live beside each hash.
public enum PasswordHash: Sendable, Equatable {
    case scrypt(ScryptParameters, salt: [UInt8], hash: [UInt8])

    static let scryptKeyLength = 32
    static let saltLength = 16

    /// Hashes `password` with Hearth's native scheme. Slow by design: never call on an event loop.
    public static func make(password: String, parameters: ScryptParameters, random: SecureRandom) -> PasswordHash {
        let salt = random.bytes(saltLength)
        return .scrypt(parameters, salt: salt, hash: scryptDigest(password, salt: salt, parameters: parameters))
    }

    /// Whether `password` matches, compared in constant time. Slow by design.
    public func verify(_ password: String) -> Bool {
        switch self {
        case .scrypt(let parameters, let salt, let expected):
            let actual = PasswordHash.scryptDigest(password, salt: salt, parameters: parameters, length: expected.count)
            return ConstantTime.equals(actual, expected)
        }
    }

    /// Whether a successful sign-in should replace this hash with a native one at `target` cost.
    public func needsUpgrade(to target: ScryptParameters) -> Bool {
        switch self {
        case .scrypt(let parameters, _, _): parameters != target
        }
    }

    static func scryptDigest(_ password: String, salt: [UInt8], parameters: ScryptParameters, length: Int = scryptKeyLength)
        -> [UInt8]
    {
        // Parameters are validated on decode and on configuration; a failure here is a programming error.
        let key = try! KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: length, rounds: 1 << parameters.logN,
            blockSize: parameters.r, parallelism: parameters.p, maxMemory: parameters.memoryBytes * 2)
        return key.withUnsafeBytes { Array($0) }
    }
}

extension PasswordHash {
    /// The PHC string stored in the database.
    public var encoded: String {
        switch self {
        case .scrypt(let p, let salt, let hash):
            "$scrypt$ln=\(p.logN),r=\(p.r),p=\(p.p)$\(Self.b64(salt))$\(Self.b64(hash))"
        }
    }

    /// Parses a stored PHC string; nil when it is not one Hearth understands.
    public init?(encoded: String) {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }
        var values: [Substring: Int] = [:]
        for pair in fields[2].split(separator: ",") {
            let kv = pair.split(separator: "=")
            guard kv.count == 2, let v = Int(kv[1]) else { return nil }
            values[kv[0]] = v
        }
        guard let ln = values["ln"], let r = values["r"], let p = values["p"] else { return nil }
        let params = ScryptParameters(logN: ln, r: r, p: p)
        guard params.isSane, let salt = Self.unb64(fields[3]), let hash = Self.unb64(fields[4]), hash.count >= 16 else {
            return nil
        }
        self = .scrypt(params, salt: salt, hash: hash)
    }

    private static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    private static func unb64(_ text: Substring) -> [UInt8]? {
        var s = String(text)
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { Array($0) }
    }
}
