import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and opaque tokens use it.
///
/// Hand-rolled over bytes: ID tokens are decoded on every authenticated request.
public enum Base64URL {
    static let radix64 = Radix64("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    // Concrete signatures rather than generic ones: generics are not specialised across module
    // boundaries, and the unspecialised paths showed up in request profiles.

    public static func encode(_ data: Data) -> String { encode([UInt8](data)) }

    public static func encode(_ input: [UInt8]) -> String {
        String(decoding: radix64.encode(input), as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? { decode(Substring(text)) }

    /// Decodes unpadded (or correctly padded) base64url; nil on any other character or length.
    public static func decode(_ text: Substring) -> [UInt8]? {
        var chars = [UInt8](text.utf8)
        if chars.count % 4 == 0 {
            while chars.last == UInt8(ascii: "=") { chars.removeLast() }
        }
        if chars.count % 4 == 1 { return nil }
        return radix64.decode(chars)
    }
}
