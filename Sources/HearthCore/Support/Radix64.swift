/// Unpadded base-64 over any 64-character alphabet: base64url for tokens, bcrypt's own for its hashes.
struct Radix64: Sendable {
    let alphabet: [UInt8]
    let values: [UInt8]

    /// `aliases` are extra characters that decode as the alphabet character they map to.
    init(_ alphabet: String, aliases: [Character: Character] = [:]) {
        self.alphabet = Array(alphabet.utf8)
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in self.alphabet.enumerated() { values[Int(c)] = UInt8(i) }
        for (alias, target) in aliases {
            values[Int(alias.asciiValue!)] = values[Int(target.asciiValue!)]
        }
        self.values = values
    }

    /// Four characters per three bytes; a trailing partial group takes two or three, its spare bits zero.
    /// A group at a time into a buffer of the final size: tokens are encoded on every sign-in and refresh.
    func encode(_ bytes: [UInt8]) -> [UInt8] {
        let rest = bytes.count % 3
        let count = bytes.count / 3 * 4 + (rest == 0 ? 0 : rest + 1)
        return alphabet.withUnsafeBufferPointer { a in
            bytes.withUnsafeBufferPointer { src in
                [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                    var i = 0
                    var o = 0
                    while i + 3 <= src.count {
                        let n = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
                        out[o] = a[Int(n >> 18 & 63)]
                        out[o + 1] = a[Int(n >> 12 & 63)]
                        out[o + 2] = a[Int(n >> 6 & 63)]
                        out[o + 3] = a[Int(n & 63)]
                        i += 3
                        o += 4
                    }
                    if rest > 0 {
                        let n = UInt32(src[i]) << 16 | (rest == 2 ? UInt32(src[i + 1]) << 8 : 0)
                        out[o] = a[Int(n >> 18 & 63)]
                        out[o + 1] = a[Int(n >> 12 & 63)]
                        if rest == 2 { out[o + 2] = a[Int(n >> 6 & 63)] }
                        o += rest + 1
                    }
                    initialized = o
                }
            }
        }
    }

    /// The bytes, or nil on a character outside the alphabet. Spare trailing bits are dropped.
    func decode(_ chars: some Sequence<UInt8>) -> [UInt8]? {
        if let decoded = chars.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(chars).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// Four characters to three bytes at a time; a trailing two or three give one or two bytes (one alone, only
    /// spare bits, gives none).
    private func decode(buffer chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let rest = chars.count % 4
        let count = chars.count / 4 * 3 + (rest > 1 ? rest - 1 : 0)
        var valid = true
        let out = values.withUnsafeBufferPointer { v in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                var i = 0
                var o = 0
                while i + 4 <= chars.count {
                    let a = v[Int(chars[i])]
                    let b = v[Int(chars[i + 1])]
                    let c = v[Int(chars[i + 2])]
                    let d = v[Int(chars[i + 3])]
                    // Alphabet values are below 64; 0xFF marks a character outside it.
                    if (a | b | c | d) & 0xC0 != 0 {
                        valid = false
                        break
                    }
                    let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: n >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: n)
                    i += 4
                    o += 3
                }
                var buffer: UInt32 = 0
                var bits = 0
                while valid, i < chars.count {
                    let value = v[Int(chars[i])]
                    if value == 0xFF {
                        valid = false
                        break
                    }
                    buffer = buffer << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        out[o] = UInt8(truncatingIfNeeded: buffer >> UInt32(bits))
                        o += 1
                    }
                    i += 1
                }
                initialized = o
            }
        }
        return valid ? out : nil
    }
}
