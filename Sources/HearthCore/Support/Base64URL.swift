import Foundation

/// base64url without padding (RFC 4648 §5), as JWTs and opaque tokens use it.
public enum Base64URL {
    public static func encode<D: DataProtocol>(_ bytes: D) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: some StringProtocol) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !s.contains("=") || s.count % 4 == 0 else { return nil }
        if !s.hasSuffix("=") {
            let rem = s.count % 4
            if rem == 1 { return nil }
            if rem > 0 { s += String(repeating: "=", count: 4 - rem) }
        }
        return Data(base64Encoded: s)
    }
}
