import Foundation

/// A URL as a browser reads it (the WHATWG URL Standard's parser, for the parts a redirect or an outbound call
/// depends on: scheme, credentials, host, port). Foundation reads some strings differently from browsers
/// (`https://evil.example\@localhost/` is a URL on localhost to Foundation and on evil.example to a browser), so
/// every check of where a URL leads parses it here. Hosts outside ASCII are refused rather than mapped (IDNA):
/// an authorized domain is configured in its ASCII form.
public struct BrowserURL: Sendable, Equatable {
    public enum Host: Sendable, Equatable, CustomStringConvertible {
        /// Lower-case ASCII, percent-decoded, as written otherwise (a trailing dot stays).
        case domain(String)
        case ipv4(UInt32)
        /// Eight 16-bit pieces.
        case ipv6([UInt16])
        /// The host of a scheme that is not special (`javascript://localhost`): never a network host.
        case opaque(String)

        public var description: String {
            switch self {
            case .domain(let name), .opaque(let name): name
            case .ipv4(let address): (0..<4).map { String((address >> (24 - 8 * $0)) & 0xff) }.joined(separator: ".")
            case .ipv6(let pieces): "[" + pieces.map { String($0, radix: 16) }.joined(separator: ":") + "]"
            }
        }
    }

    /// Lower-case, without the colon.
    public var scheme: String
    public var username: String
    public var password: String
    public var host: Host?
    public var port: Int?
    /// Everything after the authority (path, query, fragment), as written.
    public var rest: String

    /// The schemes whose URLs have a network host, where `\` is read as `/`.
    static let specialSchemes: [String: Int?] = [
        "http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": nil,
    ]

    public var isSpecial: Bool { Self.specialSchemes[scheme] != nil }
    public var hasCredentials: Bool { !username.isEmpty || !password.isEmpty }

    /// Parses `text` as a browser would, or nil where a browser would refuse it (or where its host is not ASCII).
    public init?(_ text: String) {
        // Leading and trailing C0 controls and spaces are trimmed; tabs and newlines anywhere are removed.
        var scalars = Array(text.unicodeScalars.drop(while: { $0.value <= 0x20 }))
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        scalars.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let input = String(String.UnicodeScalarView(scalars))

        guard let colon = input.firstIndex(of: ":") else { return nil }
        let scheme = input[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0)
            })
        else { return nil }
        self.scheme = scheme.lowercased()
        username = ""
        password = ""
        port = nil
        var remaining = Substring(input[input.index(after: colon)...])
        let special = Self.specialSchemes[self.scheme] != nil

        let slash: (Character) -> Bool = { $0 == "/" || $0 == "\\" }
        if self.scheme == "file" {
            // The file host state: a host only between the first two slashes and the next.
            guard remaining.prefix(2).count == 2, remaining.prefix(2).allSatisfy(slash) else {
                host = nil
                rest = String(remaining)
                return
            }
            remaining = remaining.dropFirst(2)
        } else if special {
            // "special authority ignore slashes": any run of / and \ before the authority.
            remaining = remaining.drop(while: slash)
        } else if remaining.hasPrefix("//") {
            remaining = remaining.dropFirst(2)
        } else {
            // No authority (`javascript:alert(1)`, `mailto:…`).
            host = nil
            rest = String(remaining)
            return
        }
        let ends: Set<Character> = special ? ["/", "\\", "?", "#"] : ["/", "?", "#"]
        let authorityEnd = remaining.firstIndex(where: { ends.contains($0) }) ?? remaining.endIndex
        var authority = remaining[..<authorityEnd]
        rest = String(remaining[authorityEnd...])

        // The last `@` ends the credentials; `:` in them separates the password.
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            if let split = credentials.firstIndex(of: ":") {
                username = String(credentials[..<split])
                password = String(credentials[credentials.index(after: split)...])
            } else {
                username = String(credentials)
            }
            authority = authority[authority.index(after: at)...]
        }

        // The port follows the last `:` outside brackets.
        var hostText = authority
        var inBrackets = false
        var portColon: Substring.Index?
        for index in authority.indices {
            switch authority[index] {
            case "[": inBrackets = true
            case "]": inBrackets = false
            case ":" where !inBrackets: portColon = portColon ?? index
            default: break
            }
        }
        if let portColon {
            hostText = authority[..<portColon]
            let digits = authority[authority.index(after: portColon)...]
            if !digits.isEmpty {
                let significant = digits.drop(while: { $0 == "0" })
                guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), significant.count <= 5,
                    let number = significant.isEmpty ? 0 : Int(significant), number <= 65535
                else { return nil }
                // A scheme's default port is no port.
                port = Self.specialSchemes[self.scheme].flatMap { $0 } == number ? nil : number
            }
        }
        if self.scheme == "file" && hostText.isEmpty {
            host = nil
        } else if special {
            guard let parsed = Self.parseHost(hostText) else { return nil }
            host = parsed
        } else {
            guard let opaque = Self.parseOpaqueHost(hostText) else { return nil }
            host = opaque.isEmpty ? nil : .opaque(opaque)
        }
    }

    // MARK: Hosts

    /// The host parser of a special scheme: IPv6 in brackets, else percent-decoded, checked for forbidden code
    /// points, and read as IPv4 when it ends in a number.
    static func parseHost(_ text: Substring) -> Host? {
        if text.hasPrefix("[") {
            guard text.hasSuffix("]"), text.count > 2 else { return nil }
            return parseIPv6(text.dropFirst().dropLast()).map(Host.ipv6)
        }
        guard let decoded = percentDecoded(text), decoded.allSatisfy(\.isASCII) else { return nil }
        let domain = decoded.lowercased()
        let forbidden = Set(" #%/:<>?@[\\]^|\u{7f}".unicodeScalars)
        guard !domain.isEmpty,
            !domain.unicodeScalars.contains(where: { $0.value < 0x20 || forbidden.contains($0) })
        else { return nil }
        if endsInANumber(domain) { return parseIPv4(domain).map(Host.ipv4) }
        return .domain(domain)
    }

    static func parseOpaqueHost(_ text: Substring) -> String? {
        let forbidden = Set(" #/:<>?@[\\]^|".unicodeScalars)
        if text.hasPrefix("[") { return parseIPv6(text.dropFirst().dropLast()).map { Host.ipv6($0).description } }
        guard !text.unicodeScalars.contains(where: { forbidden.contains($0) }) else { return nil }
        return String(text)
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether the last label (a trailing dot ignored) is a decimal number or `0x` and hex digits.
    static func endsInANumber(_ domain: String) -> Bool {
        var labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.last == "" {
            if labels.count == 1 { return false }
            labels.removeLast()
        }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        return (last.hasPrefix("0x") || last.hasPrefix("0X")) && last.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// IPv4 as browsers (and inet_aton) read it: one to four parts, each decimal, octal (leading 0) or hex (0x).
    static func parseIPv4(_ text: String) -> UInt32? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "", parts.count > 1 { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard !part.isEmpty else { return nil }
            var digits = part
            var radix = 10
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.count > 1, digits.hasPrefix("0") {
                digits = digits.dropFirst()
                radix = 8
            }
            if digits.isEmpty {
                numbers.append(0)
                continue
            }
            // Longer than any valid part: refused rather than overflowed.
            guard digits.count <= 12, let value = UInt64(digits, radix: radix) else { return nil }
            numbers.append(value)
        }
        let last = numbers.removeLast()
        guard numbers.allSatisfy({ $0 <= 255 }), last < (UInt64(1) << (8 * (4 - numbers.count))) else { return nil }
        var address = last
        for (index, number) in numbers.enumerated() { address += number << (8 * (3 - index)) }
        return UInt32(address)
    }

    /// RFC 4291 text (with `::` and a trailing dotted IPv4), as the URL Standard's IPv6 parser accepts it.
    static func parseIPv6(_ text: Substring) -> [UInt16]? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
            return nil
        }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func pieces(_ part: String, allowsIPv4: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            let groups = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, group) in groups.enumerated() {
                if group.contains(".") {
                    guard allowsIPv4, index == groups.count - 1 else { return nil }
                    let octets = group.split(separator: ".", omittingEmptySubsequences: false)
                    guard octets.count == 4 else { return nil }
                    var bytes: [UInt16] = []
                    for octet in octets {
                        guard !octet.isEmpty, octet.count <= 3, octet.allSatisfy({ $0.isASCII && $0.isNumber }),
                            octet == "0" || !octet.hasPrefix("0"), let value = UInt16(octet), value <= 255
                        else { return nil }
                        bytes.append(value)
                    }
                    out += [bytes[0] << 8 | bytes[1], bytes[2] << 8 | bytes[3]]
                } else {
                    guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                    out.append(value)
                }
            }
            return out
        }
        if halves.count == 1 {
            guard let all = pieces(halves[0], allowsIPv4: true), all.count == 8 else { return nil }
            return all
        }
        guard let head = pieces(halves[0], allowsIPv4: false), let tail = pieces(halves[1], allowsIPv4: true),
            head.count + tail.count <= 7
        else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}

extension BrowserURL.Host {
    /// Loopback: `localhost` (and names under it, which browsers and resolvers keep on this machine),
    /// 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        switch self {
        case .domain(let name):
            let name = name.hasSuffix(".") ? String(name.dropLast()) : name
            return name == "localhost" || name.hasSuffix(".localhost")
        case .ipv4(let address): return address >> 24 == 127
        case .ipv6(let pieces):
            return pieces == [0, 0, 0, 0, 0, 0, 0, 1] || (Self.mappedIPv4(pieces).map { $0 >> 24 == 127 } ?? false)
        case .opaque: return false
        }
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
    static func mappedIPv4(_ pieces: [UInt16]) -> UInt32? {
        guard pieces.count == 8, pieces[0..<5].allSatisfy({ $0 == 0 }), pieces[5] == 0xffff else { return nil }
        return UInt32(pieces[6]) << 16 | UInt32(pieces[7])
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
