import Foundation
import HearthCore
import Testing

@Suite struct PasswordHashTests {
    let cheap = ScryptParameters(logN: 10, r: 8, p: 1)

    @Test func hashVerifiesOnlyTheRightPassword() {
        let hash = PasswordHash.make(password: "correct horse", parameters: cheap, random: .system)
        #expect(hash.verify("correct horse"))
        #expect(!hash.verify("correct horsE"))
        #expect(!hash.verify(""))
    }

    @Test func encodingRoundTripsWithParameters() throws {
        let hash = PasswordHash.make(password: "pw", parameters: cheap, random: .system)
        let text = hash.encoded
        #expect(text.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        let decoded = try #require(PasswordHash(encoded: text))
        #expect(decoded == hash)
        #expect(decoded.verify("pw"))
    }

    @Test func saltsDiffer() {
        let a = PasswordHash.make(password: "same", parameters: cheap, random: .system)
        let b = PasswordHash.make(password: "same", parameters: cheap, random: .system)
        #expect(a.encoded != b.encoded)
    }

    @Test(arguments: [
        "", "plain", "$scrypt$ln=99,r=8,p=1$AAAA$AAAAAAAAAAAAAAAAAAAAAA", "$bcrypt$x$y$z", "$scrypt$ln=10$AA$BB",
    ])
    func garbageDoesNotDecode(text: String) {
        #expect(PasswordHash(encoded: text) == nil)
    }

    @Test func upgradeIsNeededWhenParametersDiffer() {
        let hash = PasswordHash.make(password: "pw", parameters: cheap, random: .system)
        #expect(!hash.needsUpgrade(to: cheap))
        #expect(hash.needsUpgrade(to: ScryptParameters(logN: 11, r: 8, p: 1)))
    }

    /// RFC 7914 §12 test vector 2 (N=1024, r=8, p=16), checking the KDF wiring and parameter order.
    @Test func scryptMatchesTheRFCVector() throws {
        let text =
            "$scrypt$ln=10,r=8,p=16$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA"
        let hash = try #require(PasswordHash(encoded: text))
        #expect(hash.verify("password"))
    }
}

@Suite struct ValidationTests {
    @Test(arguments: ["a@b.co", "Ada.Lovelace+tag@Example.COM", "x@localhost", "用户@例子.广告"])
    func validEmails(email: String) throws {
        #expect(throws: Never.self) { try EmailAddress.normalize(email) }
    }

    @Test(arguments: [
        "", "plain", "@b.co", "a@", "a@@b.co", "a b@c.co", "a@b..co", ".a@b.co", "a@-b.co", "a\n@b.co", "a@b.co\u{7F}",
    ])
    func invalidEmails(email: String) {
        #expect(throws: AuthError(.invalidEmail)) { try EmailAddress.normalize(email) }
    }

    @Test func emailsAreLowerCasedAndTrimmed() throws {
        #expect(try EmailAddress.normalize("  Ada@Example.COM ") == "ada@example.com")
    }

    @Test func defaultPolicyIsFirebases() throws {
        let policy = PasswordPolicy()
        #expect(throws: AuthError(.weakPassword, "Password should be at least 6 characters")) {
            try policy.check("12345")
        }
        #expect(throws: Never.self) { try policy.check("123456") }
    }
}

@Suite struct EncodingTests {
    @Test func base64URLRoundTrips() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + 11) % 256) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("!!!!") == nil)
    }

    @Test func base64URLMatchesFoundationsBase64() {
        let bytes = Array((0..<300).map { UInt8($0 % 256) })
        let standard = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
        #expect(Base64URL.encode(bytes) == standard)
    }

    @Test func errorMessagesUseFirebasesSeparator() {
        #expect(AuthError(.weakPassword, "too short").message == "WEAK_PASSWORD : too short")
        #expect(AuthError(.emailExists).message == "EMAIL_EXISTS")
        #expect(AuthError(.emailExists).code.httpStatus == 400)
        #expect(AuthError.missingAPIKey.code.httpStatus == 403)
    }
}
