import Foundation
/// E-mail validation and the canonical form Hearth stores.
public enum EmailAddress {
    /// Lower-cased, trimmed form of a valid address, or INVALID_EMAIL.
    public static func normalize(_ raw: String) throws(AuthError) -> String {
        if let ascii = normalizedASCII(raw) {
            guard isValidASCII(ascii) else { throw AuthError(.invalidEmail) }
            return String(decoding: ascii, as: UTF8.self)
        }
        let email = normalizedUnicode(raw)
        guard isValidUnicode(email) else { throw AuthError(.invalidEmail) }
        return email
    }

    static func normalizedUnicode(_ raw: String) -> String {
        // NFC first: "é" typed as one scalar or as "e" + combining accent is one address, and uniqueness is
        // decided on the stored bytes.
        raw.trimmingWhitespace().precomposedStringWithCanonicalMapping.lowercased()
    }

    /// The same result for an all-ASCII address, as bytes, without Foundation's Unicode normalisation (NFC is the
    /// identity on ASCII and lower-casing a byte map): a bulk import spent a sixth of its time there. Nil for
    /// anything else.
    static func normalizedASCII(_ raw: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        for byte in raw.utf8 {
            guard byte < 0x80 else { return nil }
            bytes.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        // Unicode White_Space within ASCII: tab, line feed, vertical tab, form feed, carriage return and space.
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        let end = (bytes.lastIndex { !isSpace($0) } ?? -1) + 1
        let start = bytes.firstIndex { !isSpace($0) } ?? end
        return Array(bytes[start..<end])
    }

    /// A pragmatic check in the spirit of Firebase's: one `@`, a non-empty local part,
    /// a dotless-or-dotted domain of valid labels, no spaces or control characters.
    public static func isValid(_ email: String) -> Bool {
        email.utf8.allSatisfy({ $0 < 0x80 }) ? isValidASCII(Array(email.utf8)) : isValidUnicode(email)
    }

    static func isValidUnicode(_ email: String) -> Bool {
        guard email.utf8.count <= 320 else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let local = parts[0]
        let domain = parts[1]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty else { return false }
        for scalar in email.unicodeScalars where scalar.value <= 0x20 || scalar.value == 0x7F {
            return false
        }
        if local.first == "." || local.last == "." || local.contains("..") { return false }
        let forbiddenInLocal: Set<Character> = ["(", ")", "<", ">", ",", ";", ":", "\\", "\"", "[", "]"]
        if local.contains(where: { forbiddenInLocal.contains($0) }) { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63, label.first != "-", label.last != "-" else { return false }
            guard label.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return false }
        }
        return true
    }
}

extension EmailAddress {
    /// `isValid` for ASCII bytes, rule for rule.
    static func isValidASCII(_ email: [UInt8]) -> Bool {
        guard email.count <= 320, let at = email.firstIndex(of: UInt8(ascii: "@")),
            email[(at + 1)...].firstIndex(of: UInt8(ascii: "@")) == nil
        else { return false }
        let local = email[..<at]
        let domain = email[(at + 1)...]
        guard !local.isEmpty, local.count <= 64, !domain.isEmpty else { return false }
        if email.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return false }
        let dot = UInt8(ascii: ".")
        if local.first == dot || local.last == dot { return false }
        if zip(local, local.dropFirst()).contains(where: { $0 == dot && $1 == dot }) { return false }
        let forbiddenInLocal = Array("()<>,;:\\\"[]".utf8)
        if local.contains(where: { forbiddenInLocal.contains($0) }) { return false }
        let hyphen = UInt8(ascii: "-")
        for label in domain.split(separator: dot, omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.count <= 63, label.first != hyphen, label.last != hyphen else { return false }
            guard label.allSatisfy({ isASCIIAlphanumeric($0) || $0 == hyphen }) else { return false }
        }
        return true
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
