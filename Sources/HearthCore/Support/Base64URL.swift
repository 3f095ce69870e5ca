import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and opaque tokens use it.
///
/// Hand-rolled over bytes: ID tokens are decoded on every authenticated request.
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    // Concrete signatures rather than generic ones: generics are not specialised across module
    // boundaries, and the unspecialised paths showed up in request profiles.

    public static func encode(_ data: Data) -> String { encode([UInt8](data)) }

    public static func encode(_ input: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = input.count - i
        if rest > 0 {
            var n = UInt32(input[i]) << 16
            if rest == 2 { n |= UInt32(input[i + 1]) << 8 }
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded (or correctly padded) base64url; nil on any other character or length.
    public static func decode(_ text: String) -> [UInt8]? { decode(Substring(text)) }

    public static func decode(_ text: Substring) -> [UInt8]? {
        var chars = [UInt8](text.utf8)
        if chars.count % 4 == 0 {
            while chars.last == UInt8(ascii: "=") { chars.removeLast() }
        }
        if chars.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            let v = reverse[Int(c)]
            if v == 0xFF { return nil }
            buffer = buffer << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }
}
