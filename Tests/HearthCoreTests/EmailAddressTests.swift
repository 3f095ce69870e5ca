import Testing

@testable import HearthCore

/// The ASCII fast path of e-mail normalisation must decide exactly as the Unicode path, which it skips.
@Suite struct EmailAddressTests {
    /// Addresses near every rule's edge, then random strings over the characters the rules look at.
    static func corpus() -> [String] {
        var cases = [
            "a@b.co", " Ada@Example.COM\t", "\u{0B}a@b.co\u{0C}", "a..b@c.co", ".a@b.co", "a.@b.co", "a@b..co", "a@-b.co",
            "a@b-.co", "a@b.co.", "a@", "@b.co", "a@@b.co", "a@b@c.co", "a(b@c.co", "a\"b@c.co", "a\\b@c.co",
            "a]b@c.co", "a@b_c.co", "a b@c.co", "a@b.co\u{7F}", "\u{1C}a@b.co", String(repeating: "x", count: 64) + "@b.co",
            String(repeating: "x", count: 65) + "@b.co", "a@" + String(repeating: "d", count: 63) + ".co",
            "a@" + String(repeating: "d", count: 64) + ".co", "a@" + String(repeating: "d.", count: 159) + "co",
            "a@" + String(repeating: "d.", count: 160) + "co", "", "   ", "\r\na@b.co\r\n", "A+Tag@LOCALHOST",
        ]
        let alphabet = Array("aZ09.-@+_ ()<>,;:\\\"[]\t\r\n\u{7F}\u{1F}!#$%&'*/=?^`{|}~")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            cases.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        return cases
    }

    @Test func theASCIIPathDecidesAsTheUnicodePath() {
        for raw in Self.corpus() {
            let unicode = EmailAddress.normalizedUnicode(raw)
            let ascii = EmailAddress.normalizedASCII(raw)
            #expect(ascii.map { String(decoding: $0, as: UTF8.self) } == unicode, "normalised \(raw.debugDescription)")
            #expect(EmailAddress.isValidASCII(Array(unicode.utf8)) == EmailAddress.isValidUnicode(unicode),
                    "validity of \(unicode.debugDescription)")
        }
    }

    @Test func nonASCIIAddressesTakeTheUnicodePath() throws {
        #expect(EmailAddress.normalizedASCII("José@Example.com") == nil)
        // "e" + combining acute is stored as the one precomposed scalar.
        #expect(try EmailAddress.normalize("Jose\u{301}@Example.com") == "jos\u{E9}@example.com")
    }
}
