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
    func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(buffer >> UInt32(bits) & 63)])
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(6 - bits) & 63)]) }
        return out
    }

    /// The bytes, or nil on a character outside the alphabet. Spare trailing bits are dropped.
    func decode(_ chars: some Sequence<UInt8>) -> [UInt8]? {
        var out = [UInt8]()
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            let value = values[Int(c)]
            if value == 0xFF { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
