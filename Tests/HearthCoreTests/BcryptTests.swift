import HearthCore
import Testing

/// bcrypt (EksBlowfish), verified against hashes made by PyPI's `bcrypt` (4.3.0, cross-checked with 5.0.0) and
/// one of Openwall's crypt_blowfish test vectors.
@Suite struct BcryptTests {
    static let knownAnswers: [(String, String)] = [
        ("$2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC", ""),
        ("$2b$05$axjB47GUZxyRiuHkesSEj.iQpsxszlSacp6thuXyEYJ71iKJ7Xe4a", "correct horse battery staple"),
        ("$2b$05$iiWR4yN4bFhTIOmYx3MaUOhm1cmT7LUPLPOSZk/jDwRYqQRK2q1Xy", "pässwörd 密码 🔑"),
        ("$2b$04$kJZLu.TDeuYjmuAF9Ry5ce9G4MxVuuBlZpS94BixEzb.qGbXG/TjO", String(repeating: "a", count: 71)),
        ("$2a$04$1MskG4XFIuHchCQJO2LsQedOGWcidoKiHnVwQYkVPB7Eyz9qgsxp6", "U*U"),
        ("$2y$04$TzjFZJFsepCD9yjauKlX4eH2//6Aj0ebEndlH/Qkidt0qWdXMvTfK", "correct horse"),
        ("$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "U*U"),  // Openwall
    ]

    @Test(arguments: knownAnswers)
    func knownAnswerVerifiesOnlyItsPassword(text: String, password: String) throws {
        let hash = try #require(PasswordHash(encoded: text))
        #expect(hash.verify(password))
        #expect(!hash.verify(password + "a"))
        #expect(!hash.verify("x" + password.dropFirst()))
        #expect(hash.encoded == text)
        #expect(hash.needsUpgrade(to: .default))
    }

    /// Only the first 72 bytes count: made by bcrypt 4.3.0 from an 80-byte password (5.0 refuses more than 72).
    @Test func passwordsAreTruncatedAt72Bytes() throws {
        let hash = try #require(PasswordHash(encoded: "$2b$04$06gcFw1TR6Z24NH.IYMxvOhIGlLuWMWxGgIO//lKEBXiUii0Im1za"))
        let password = String(repeating: "0123456789", count: 8)
        #expect(hash.verify(password))
        #expect(hash.verify(String(password.prefix(72))))
        #expect(hash.verify(String(password.prefix(72)) + "anything"))
        #expect(!hash.verify(String(password.prefix(71))))
    }

    /// The terminating NUL is part of the key, so a 71-byte password differs from its 72-byte extension.
    @Test func theTerminatorCountsBelow72Bytes() throws {
        let hash = try #require(PasswordHash(encoded: "$2b$04$kJZLu.TDeuYjmuAF9Ry5ce9G4MxVuuBlZpS94BixEzb.qGbXG/TjO"))
        #expect(hash.verify(String(repeating: "a", count: 71)))
        #expect(!hash.verify(String(repeating: "a", count: 72)))
    }

    @Test func parsesItsParts() throws {
        let bcrypt = try #require(BcryptHash("$2y$04$TzjFZJFsepCD9yjauKlX4eH2//6Aj0ebEndlH/Qkidt0qWdXMvTfK"))
        #expect(bcrypt.variant == "2y")
        #expect(bcrypt.cost == 4)
        #expect(bcrypt.encoded == "$2y$04$TzjFZJFsepCD9yjauKlX4eH2//6Aj0ebEndlH/Qkidt0qWdXMvTfK")
    }

    @Test(arguments: [
        "", "$2b$", "$2x$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",  // unknown variant
        "$2$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",
        "$2b$03$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",  // cost below 4
        "$2b$32$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",  // cost above 31
        "$2b$4$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",  // cost not two digits
        "$2b$+4$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",
        "$2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJ",  // 52 characters
        "$2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJCC",  // 54 characters
        "$2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJ!",  // outside bcrypt's alphabet
        "$2b$04$RTBEziK8u50pMTLuAtAha/xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",  // salt with stray low bits
        "$2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJD",  // hash with stray low bits
        "$2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJC$",
        "$2b$04$RTBEziK8u50pMTLuAtAha$xLxjetsPLnKSvdrirmZl4f9MUEIbEJC",
        "2b$04$RTBEziK8u50pMTLuAtAha.xLxjetsPLnKSvdrirmZl4f9MUEIbEJCx",
    ])
    func malformedTextDoesNotDecode(text: String) {
        #expect(BcryptHash(text) == nil)
        #expect(PasswordHash(encoded: text) == nil)
    }
}
