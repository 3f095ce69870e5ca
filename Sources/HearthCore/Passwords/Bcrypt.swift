/// A bcrypt hash in modular-crypt form, `$2b$<cost>$<22-character salt><31-character hash>`, as Firebase's
/// `BCRYPT` import takes it (the whole string is the password hash; there is no separate salt).
///
/// Hearth verifies bcrypt hashes and never creates them. Variants `2a`, `2b` and `2y` are computed alike, as PyPI's
/// `bcrypt` computes them (OpenBSD's `2a` differs only for passwords of 255 bytes or more); the variant is kept so
/// the string round-trips.
public struct BcryptHash: Sendable, Equatable {
    /// `2a`, `2b` or `2y`.
    public let variant: String
    /// log2 of the number of key-expansion rounds, 4–31.
    public let cost: Int
    let salt: [UInt8]
    let hash: [UInt8]

    static let saltLength = 16
    static let hashLength = 23

    /// Parses a modular-crypt string; nil unless it is one bcrypt implementations produce, so that
    /// `encoded` gives back exactly `text`.
    public init?(_ text: String) {
        let fields = text.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0].isEmpty, ["2a", "2b", "2y"].contains(fields[1]),
            fields[2].utf8.count == 2, fields[2].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let cost = Int(fields[2]), (4...31).contains(cost), fields[3].utf8.count == 53
        else { return nil }
        let saltText = fields[3].prefix(22)
        let hashText = fields[3].dropFirst(22)
        guard let salt = Self.radix64Decode(saltText), let hash = Self.radix64Decode(hashText),
            Self.radix64Encode(salt) == saltText, Self.radix64Encode(hash) == hashText
        else { return nil }
        self.variant = String(fields[1])
        self.cost = cost
        self.salt = salt
        self.hash = hash
    }

    /// The modular-crypt string.
    public var encoded: String {
        "$\(variant)$\(cost < 10 ? "0" : "")\(cost)$\(Self.radix64Encode(salt))\(Self.radix64Encode(hash))"
    }

    /// The 23 hash bytes bcrypt derives from `password` with this hash's cost and salt. Slow by design.
    func digest(_ password: [UInt8]) -> [UInt8] {
        // The key is the password and its C string terminator, of which only the first 72 bytes are used.
        let key = Array((password + [0]).prefix(72))
        let state = EksBlowfish(key: key, salt: salt, cost: cost)
        // "OrpheanBeholderScryDoubt", encrypted 64 times.
        var text: [UInt32] = [0x4F72_7068, 0x6561_6E42, 0x6568_6F6C, 0x6465_7253, 0x6372_7944, 0x6F75_6274]
        for _ in 0..<64 {
            for i in stride(from: 0, to: 6, by: 2) { (text[i], text[i + 1]) = state.encrypt(text[i], text[i + 1]) }
        }
        let bytes = text.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
        return Array(bytes.prefix(Self.hashLength))
    }

    // bcrypt's base64: its own alphabet, no padding, trailing bits zero.
    private static let radix64 = Radix64("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    private static func radix64Encode(_ bytes: [UInt8]) -> Substring {
        Substring(decoding: radix64.encode(bytes), as: UTF8.self)
    }

    private static func radix64Decode(_ text: Substring) -> [UInt8]? {
        radix64.decode(text.utf8)
    }
}

/// Blowfish with bcrypt's expensive key schedule (Provos and Mazières, "A Future-Adaptable Password Scheme", 1999).
struct EksBlowfish {
    private var p = BlowfishInitialState.p
    private var s = BlowfishInitialState.s

    /// EksBlowfishSetup: the salted key expansion, then 2^cost rounds alternating the key and the salt.
    init(key: [UInt8], salt: [UInt8], cost: Int) {
        expand(key: key, salt: salt)
        for _ in 0..<(1 << cost) {
            expand(key: key, salt: nil)
            expand(key: salt, salt: nil)
        }
    }

    func encrypt(_ left: UInt32, _ right: UInt32) -> (UInt32, UInt32) {
        p.withUnsafeBufferPointer { p in
            s.withUnsafeBufferPointer { s in Self.encrypt(left, right, p: p, s: s) }
        }
    }

    /// XORs the cyclic `key` into the P-array, then replaces P and the S-boxes with successive encryptions of
    /// the running block, each first XORed with the next 8 bytes of the cyclic `salt` when there is one.
    private mutating func expand(key: [UInt8], salt: [UInt8]?) {
        var keyIndex = 0
        for i in 0..<18 { p[i] ^= Self.word(key, &keyIndex) }
        var saltIndex = 0
        var left: UInt32 = 0
        var right: UInt32 = 0
        p.withUnsafeMutableBufferPointer { p in
            s.withUnsafeMutableBufferPointer { s in
                func next() {
                    if let salt {
                        left ^= Self.word(salt, &saltIndex)
                        right ^= Self.word(salt, &saltIndex)
                    }
                    (left, right) = Self.encrypt(left, right, p: UnsafeBufferPointer(p), s: UnsafeBufferPointer(s))
                }
                for i in stride(from: 0, to: 18, by: 2) {
                    next()
                    (p[i], p[i + 1]) = (left, right)
                }
                for i in stride(from: 0, to: 1024, by: 2) {
                    next()
                    (s[i], s[i + 1]) = (left, right)
                }
            }
        }
    }

    /// The next big-endian word of `bytes` read cyclically from `index`.
    private static func word(_ bytes: [UInt8], _ index: inout Int) -> UInt32 {
        var word: UInt32 = 0
        for _ in 0..<4 {
            word = word << 8 | UInt32(bytes[index])
            index = (index + 1) % bytes.count
        }
        return word
    }

    private static func encrypt(
        _ left: UInt32, _ right: UInt32, p: UnsafeBufferPointer<UInt32>, s: UnsafeBufferPointer<UInt32>
    )
        -> (UInt32, UInt32)
    {
        func f(_ x: UInt32) -> UInt32 {
            ((s[Int(x >> 24)] &+ s[256 + Int(x >> 16 & 0xFF)]) ^ s[512 + Int(x >> 8 & 0xFF)]) &+ s[768 + Int(x & 0xFF)]
        }
        var l = left ^ p[0]
        var r = right
        for i in stride(from: 1, to: 17, by: 2) {
            r ^= f(l) ^ p[i]
            l ^= f(r) ^ p[i + 1]
        }
        return (r ^ p[17], l)
    }
}
