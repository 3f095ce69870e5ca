/// Standard base64 (RFC 4648 §4) over bytes, for the hash and salt fields of user imports and exports.
///
/// Decoding is lenient in the ways Firebase's tools differ: `firebase auth:export` writes the standard
/// alphabet with padding, the Admin SDKs send base64url, and both come with or without `=`.
/// Foundation's `base64EncodedString` plus string replacements cost more than the database writes of an import.
public enum Base64 {
    static let radix64 = Radix64(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", aliases: ["-": "+", "_": "/"])

    public static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        var chars = radix64.encode(bytes)
        if padded { while chars.count % 4 != 0 { chars.append(UInt8(ascii: "=")) } }
        return String(decoding: chars, as: UTF8.self)
    }

    /// Standard or URL-safe base64, padded or not; nil on any other character or an impossible length.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? { decode(chars: Array(text.utf8)) }

    /// The same for a `String`: a concrete overload, since the generic one is not specialised in other modules.
    public static func decode(_ text: String) -> [UInt8]? { decode(chars: Array(text.utf8)) }

    private static func decode(chars: [UInt8]) -> [UInt8]? {
        var chars = chars
        var padding = 0
        while chars.last == UInt8(ascii: "=") && padding < 2 {
            chars.removeLast()
            padding += 1
        }
        if padding > 0 && (chars.count + padding) % 4 != 0 { return nil }
        if chars.count % 4 == 1 { return nil }
        return radix64.decode(chars)
    }
}
