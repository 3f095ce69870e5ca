import Foundation
/// E-mail validation and the canonical form Hearth stores.
public enum EmailAddress {
    /// Lower-cased, trimmed form of a valid address, or INVALID_EMAIL.
    public static func normalize(_ raw: String) throws(AuthError) -> String {
        // NFC first: "é" typed as one scalar or as "e" + combining accent is one address, and uniqueness is
        // decided on the stored bytes.
        let email = raw.trimmingWhitespace().precomposedStringWithCanonicalMapping.lowercased()
        guard isValid(email) else { throw AuthError(.invalidEmail) }
        return email
    }

    /// A pragmatic check in the spirit of Firebase's: one `@`, a non-empty local part,
    /// a dotless-or-dotted domain of valid labels, no spaces or control characters.
    public static func isValid(_ email: String) -> Bool {
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

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
