import Foundation

/// An RFC 5322 message with a multipart/alternative body (plain text, then HTML), as SMTP's DATA carries it.
struct MIMEMessage {
    var from: String
    var fromName: String?
    var to: String
    var replyTo: String?
    var subject: String
    var text: String
    var html: String
    var date: Date
    /// Random, for the boundary and Message-ID.
    var token: String

    /// CRLF line endings, lines under 78 characters, base64 bodies (so no line starts with a dot).
    func rendered() -> String {
        let boundary = "hearth-alt-\(token)"
        let domain = from.split(separator: "@").last.map(String.init) ?? "hearth.invalid"
        var headers = [
            "From: " + Self.mailbox(from, name: fromName),
            "To: " + Self.mailbox(to, name: nil),
        ]
        if let replyTo { headers.append("Reply-To: " + Self.mailbox(replyTo, name: nil)) }
        headers += [
            "Subject: " + Self.encodedWord(subject),
            "Date: " + Self.rfc5322Date(date),
            "Message-ID: <\(token)@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
        ]
        var lines = headers
        lines.append("")
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines.append("--\(boundary)")
            lines.append("Content-Type: \(type); charset=utf-8")
            lines.append("Content-Transfer-Encoding: base64")
            lines.append("")
            lines += Self.base64Lines(body)
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `"Name" <address>`, the name as an encoded word when it is not plain ASCII.
    static func mailbox(_ address: String, name: String?) -> String {
        guard let name = name.map(singleLine), !name.isEmpty else { return "<\(address)>" }
        let plain = name.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" }
        return (plain ? "\"\(name)\"" : encodedWord(name)) + " <\(address)>"
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words for non-ASCII header text, split so each stays under 76 characters.
    static func encodedWord(_ raw: String) -> String {
        let value = singleLine(raw)
        if value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) && value.count < 900 { return value }
        var words: [String] = []
        var chunk = ""
        for character in value {
            if (chunk + String(character)).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Data($0.utf8).base64EncodedString())?=" }.joined(separator: "\r\n ")
    }

    /// Header values never carry a line break (no header injection through a display name or subject).
    static func singleLine(_ value: String) -> String {
        String(value.map { $0.isNewline ? " " : $0 })
    }

    static func base64Lines(_ body: String) -> [String] {
        let encoded = Data(body.utf8).base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
