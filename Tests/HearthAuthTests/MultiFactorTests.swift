import Crypto
import Foundation
import HearthAuth
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Multi-factor sign-in end to end against the real `hearth` binary: enroll an SMS factor and a TOTP authenticator
/// through `user.multiFactor`, then sign in with a password, get `secondFactorRequired`, and finish through the
/// resolver. TOTP codes come from the small RFC 6238 implementation below, not from Hearth's.
@Suite("Multi-factor, live")
struct MultiFactorLiveTests {
    static var mfa: [String: Any] {
        [
            "state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
            "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]]],
        ]
    }

    /// The emulator routes list what the development outboxes hold.
    static func outbox(_ server: TestServer, _ kind: String) async throws -> [[String: Any]] {
        let url = server.endpoint.appendingPathComponent("emulator/v1/projects/\(TestServer.projectID)/\(kind)")
        let (data, _) = try await URLSession.shared.data(from: url)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(json[kind] as? [[String: Any]])
    }

    static func smsCode(_ server: TestServer, to number: String) async throws -> String {
        let codes = try await outbox(server, "verificationCodes")
        return try #require(codes.last { $0["phoneNumber"] as? String == number }?["code"] as? String)
    }

    /// A signed-in password user with a verified e-mail, verified through the SDK's own e-mail action flow.
    static func verifiedUser(_ server: TestServer, _ auth: Auth, email: String, password: String) async throws
        -> User
    {
        let user = try await auth.createUser(withEmail: email, password: password).user
        try await user.sendEmailVerification()
        let oob = try #require(try await outbox(server, "oobCodes").last?["oobCode"] as? String)
        try await auth.applyActionCode(oob)
        try await user.reload()
        #expect(user.isEmailVerified)
        return user
    }

    /// The resolver a password sign-in of a multi-factor user throws.
    static func resolver(_ auth: Auth, email: String, password: String) async throws -> MultiFactorResolver {
        do {
            _ = try await auth.signIn(withEmail: email, password: password)
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            return try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
        }
        Issue.record("signed in without a second factor")
        throw CancellationError()
    }

    @Test func smsSecondFactorFromEnrollmentToSignIn() async throws {
        // Enrollment and sign-in text the same number seconds apart: no resend cooldown here.
        let server = try await TestServer(emulator: true, mfa: Self.mfa, phone: ["resendCooldownSeconds": 0])
        defer { server.stop() }
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let number = "+16505550177"
        let user = try await Self.verifiedUser(server, auth, email: email, password: "first factor")

        let session = try await user.multiFactor.session()
        let phone = PhoneAuthProvider.provider(auth: auth)
        let enrollID = try await phone.verifyPhoneNumber(number, uiDelegate: nil, multiFactorSession: session)
        let enrollCredential = phone.credential(
            withVerificationID: enrollID, verificationCode: try await Self.smsCode(server, to: number))
        try await user.multiFactor.enroll(
            with: PhoneMultiFactorGenerator.assertion(with: enrollCredential), displayName: "work phone")
        let factor = try #require(user.multiFactor.enrolledFactors.first as? PhoneMultiFactorInfo)
        #expect(factor.phoneNumber == number)
        #expect(factor.displayName == "work phone")
        #expect(try await user.getIDTokenResult().signInSecondFactor == "phone")

        try auth.signOut()
        let resolver = try await Self.resolver(auth, email: email, password: "first factor")
        #expect(auth.currentUser == nil)
        let hint = try #require(resolver.hints.first as? PhoneMultiFactorInfo)
        #expect(hint.phoneNumber == "+*******0177")
        #expect(hint.uid == factor.uid)
        let signInID = try await phone.verifyPhoneNumber(
            with: hint, uiDelegate: nil, multiFactorSession: resolver.session)
        let credential = phone.credential(
            withVerificationID: signInID, verificationCode: try await Self.smsCode(server, to: number))
        let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: credential))
        #expect(result.user.uid == user.uid)
        #expect(auth.currentUser?.uid == user.uid)
        let token = try await result.user.getIDTokenResult()
        #expect(token.signInSecondFactor == "phone")
        #expect(token.signInProvider == "password")

        // Re-authentication is a first factor too: it stops at the same challenge.
        var reauthResolver: MultiFactorResolver?
        do {
            _ = try await result.user.reauthenticate(
                with: EmailAuthProvider.credential(withEmail: email, password: "first factor"))
        } catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue {
            reauthResolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
        }
        let again = try #require(reauthResolver)
        let reauthID = try await phone.verifyPhoneNumber(
            with: try #require(again.hints.first as? PhoneMultiFactorInfo), uiDelegate: nil,
            multiFactorSession: again.session)
        let reauthCode = try await Self.smsCode(server, to: number)
        _ = try await again.resolveSignIn(
            with: PhoneMultiFactorGenerator.assertion(
                with: phone.credential(withVerificationID: reauthID, verificationCode: reauthCode)))
        #expect(auth.currentUser?.uid == user.uid)

        // Unenrolling keeps the user signed in with fresh tokens; the next sign-in needs no second factor.
        let current = try #require(auth.currentUser)
        try await current.multiFactor.unenroll(with: hint)
        #expect(current.multiFactor.enrolledFactors.isEmpty)
        try auth.signOut()
        _ = try await auth.signIn(withEmail: email, password: "first factor")
    }

    @Test func totpSecondFactorWithAnIndependentCodeGenerator() async throws {
        let server = try await TestServer(emulator: true, mfa: Self.mfa)
        defer { server.stop() }
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let user = try await Self.verifiedUser(server, auth, email: email, password: "first factor")

        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
        let key = secret.sharedSecretKey()
        let uri = secret.generateQRCodeURL(withAccountName: email, issuer: "Hearth")
        #expect(uri == "otpauth://totp/Hearth:\(email)?secret=\(key)&issuer=Hearth&algorithm=SHA1&digits=6")
        try await user.multiFactor.enroll(
            with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: try IndependentTOTP.code(base32: key, at: Date())),
            displayName: "authenticator")
        let factor = try #require(user.multiFactor.enrolledFactors.first as? TOTPMultiFactorInfo)
        #expect(factor.factorID == "totp")

        try auth.signOut()
        let resolver = try await Self.resolver(auth, email: email, password: "first factor")
        let hint = try #require(resolver.hints.first)
        #expect(hint.factorID == "totp" && hint is TOTPMultiFactorInfo)
        // The code the enrollment used cannot be used again: take the next period's, which the window accepts.
        let next = try IndependentTOTP.code(base32: key, at: Date().addingTimeInterval(30))
        let result = try await resolver.resolveSignIn(
            with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: next))
        #expect(result.user.uid == user.uid)
        #expect(try await result.user.getIDTokenResult().signInSecondFactor == "totp")
    }
}

/// RFC 6238 (HMAC-SHA1, 6 digits, 30 s) and RFC 4648 base32, written for the tests from the RFCs.
enum IndependentTOTP {
    static func code(base32: String, at date: Date) throws -> String {
        let key = try #require(decode(base32))
        var counter = UInt64(date.timeIntervalSince1970 / 30).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        let offset = Int(mac[19] & 0x0f)
        let value = mac[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
        return String(format: "%06d", value % 1_000_000)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = "", out: [UInt8] = []
        for ch in text.uppercased() where ch != "=" {
            guard let index = alphabet.firstIndex(of: ch) else { return nil }
            let b = String(index, radix: 2)
            bits += String(repeating: "0", count: 5 - b.count) + b
        }
        var i = bits.startIndex
        while bits.distance(from: i, to: bits.endIndex) >= 8 {
            let j = bits.index(i, offsetBy: 8)
            out.append(UInt8(bits[i..<j], radix: 2)!)
            i = j
        }
        return out
    }
}
