/// RFC 4648 §6 base32 (upper-case alphabet, no padding on output): how TOTP secrets are shown to users
/// and put into `otpauth://` URIs.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int(buffer >> UInt32(bits - 5) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes ignoring case, spaces and `=` padding; nil for any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for ch in text.utf8 {
            let value: UInt8
            switch ch {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = ch - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = ch - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = ch - UInt8(ascii: "2") + 26
            case UInt8(ascii: " "), UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8(buffer >> UInt32(bits - 8) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
