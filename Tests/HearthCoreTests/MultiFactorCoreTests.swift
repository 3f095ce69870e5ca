import Foundation
import HearthCore
import Testing

@Suite("TOTP, base32 and MFA settings")
struct MultiFactorCoreTests {
    /// RFC 6238 Appendix B, SHA-1 seed, truncated to six digits as Firebase's codes are.
    @Test(arguments: [
        (59.0, "287082"), (1_111_111_109.0, "081804"), (1_111_111_111.0, "050471"), (1_234_567_890.0, "005924"),
        (2_000_000_000.0, "279037"), (20_000_000_000.0, "353130"),
    ])
    func rfc6238Vectors(_ time: Double, _ code: String) {
        let secret = Array("12345678901234567890".utf8)
        #expect(TOTP.code(secret: secret, step: TOTP.step(at: Date(timeIntervalSince1970: time))) == code)
    }

    @Test func windowAcceptsAdjacentStepsOnly() {
        let secret = Array("12345678901234567890".utf8)
        let now = Date(timeIntervalSince1970: 1_111_111_111)
        let step = TOTP.step(at: now)
        for offset in -2...2 {
            let code = TOTP.code(secret: secret, step: step + Int64(offset))
            let found = TOTP.matchingStep(code: code, secret: secret, now: now, adjacentIntervals: 1)
            #expect(found == (abs(offset) <= 1 ? step + Int64(offset) : nil))
        }
        #expect(TOTP.matchingStep(code: "12345", secret: secret, now: now, adjacentIntervals: 10) == nil)
        #expect(TOTP.matchingStep(code: "abcdef", secret: secret, now: now, adjacentIntervals: 10) == nil)
    }

    @Test func base32RoundTripsAndMatchesRFC4648() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.encode(Array("f".utf8)) == "MY")
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
        #expect(Base32.decode("MZ!W") == nil)
        let random = (0..<20).map { _ in UInt8.random(in: 0...255) }
        #expect(Base32.decode(Base32.encode(random)) == random)
    }

    @Test func phoneNumbersAreMaskedAsFirebaseMasksThem() {
        #expect(MFAEnrollment.mask("+16505553434") == "+*******3434")
        #expect(MFAEnrollment.mask("+442071234567") == "+********4567")
        #expect(MFAEnrollment.mask("123") == "123")
    }

    @Test func settingsReadIdentityPlatformsShape() throws {
        let settings = try MFASettings(
            json: [
                "state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 3]]],
            ])
        #expect(settings == MFASettings(state: .enabled, phoneEnabled: true, totpAdjacentIntervals: 3))
        #expect(try MFASettings(json: settings.json) == settings)
        #expect(throws: AuthError.self) { try MFASettings(json: ["state": "SOMETIMES"]) }
        #expect(throws: AuthError.self) {
            try MFASettings(json: ["providerConfigs": [["totpProviderConfig": ["adjacentIntervals": 11]]]])
        }
        #expect(!MFASettings().isOn)
        let config = try JSONDecoder().decode(
            ProjectConfig.self,
            from: Data(#"{"projectId":"p","mfa":{"state":"ENABLED","enabledProviders":["PHONE_SMS"]}}"#.utf8))
        #expect(config.mfa.allowsPhone && !config.mfa.allowsTOTP)
    }

    @Test func enrollmentsSurviveStorage() {
        let list = [
            MFAEnrollment(
                id: "a", displayName: "phone", enrolledAt: Date(millisecondsSince1970: 1_000),
                factor: .phone("+16505550101")),
            MFAEnrollment(
                id: "b", displayName: nil, enrolledAt: Date(millisecondsSince1970: 2_000),
                factor: .totp(storedSecret: "b32:ABC")),
        ]
        #expect(MFAEnrollment.parseStored(MFAEnrollment.storedText(list)) == list)
        #expect(MFAEnrollment.storedText([]) == nil)
        #expect(MFAEnrollment.parseStored(nil) == [])
    }
}
