import Foundation
import HearthCore
import HearthEngine
import HearthStore
import HearthTokens
import Testing

/// Multi-factor authentication through the router: enrollment, the challenge every first factor ends in, the
/// second factor, and Firebase's errors, on the real SQLite store.
@Suite("Multi-factor authentication")
struct MultiFactorTests {
    static let number = "+16505550101"
    static let masked = "+*******0101"

    static func harness(kek: KeyEncryptionKey? = nil, emulator: Bool = false, adjacent: Int? = 1) async throws
        -> Harness
    {
        try await Harness(emulator: emulator, kek: kek) {
            $0.mfa = MFASettings(state: .enabled, phoneEnabled: true, totpAdjacentIntervals: adjacent)
            // Enrollment and sign-in text one number within seconds; the cooldown is tested with phone sign-in.
            $0.phone.resendCooldownSeconds = 0
        }
    }

    /// A password user whose e-mail is verified (Firebase's condition for enrolling); returns uid and ID token.
    static func verifiedUser(_ c: Client, _ h: Harness, email: String = "mfa@example.com") async throws
        -> (uid: String, idToken: String)
    {
        let created = try await c.signUp(email: email, password: "correct horse")
        let uid = try #require(created.string("localId"))
        var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
        user.emailVerified = true
        try await h.store.updateUser(user)
        let signedIn = try await c.signIn(email, "correct horse")
        return (uid, try #require(signedIn.string("idToken")))
    }

    static func lastCode(_ h: Harness) async throws -> String {
        try #require(try await h.store.outbox(projectID: h.projectID).last?.code)
    }

    /// Enrolls `number` as a phone factor; returns the finalize reply.
    static func enrollPhone(_ c: Client, _ h: Harness, idToken: String, number: String = number) async throws
        -> Client.Reply
    {
        let started = try await c.post(
            "/v2/accounts/mfaEnrollment:start",
            ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": .string(number)]])
        #expect(started.status == 200)
        let session = try #require(started["phoneSessionInfo"]?["sessionInfo"]?.stringValue)
        return try await c.post(
            "/v2/accounts/mfaEnrollment:finalize",
            [
                "idToken": .string(idToken), "displayName": "work phone",
                "phoneVerificationInfo": ["sessionInfo": .string(session), "code": .string(try await lastCode(h))],
            ])
    }

    static func totpCode(_ h: Harness, secret: String, offset: Int64 = 0) throws -> String {
        let bytes = try #require(Base32.decode(secret))
        return TOTP.code(secret: bytes, step: TOTP.step(at: h.clock.authClock.now()) + offset)
    }

    @Test func phoneFactorEnrollsThenGuardsPasswordSignIn() async throws {
        let h = try await Self.harness()
        try await h.run { c in
            let (uid, idToken) = try await Self.verifiedUser(c, h)
            let enrolled = try await Self.enrollPhone(c, h, idToken: idToken)
            #expect(enrolled.status == 200)
            #expect(enrolled.string("refreshToken") != nil)
            let enrolledClaims = try claims(of: enrolled.string("idToken"))
            #expect(enrolledClaims["firebase"]?["sign_in_second_factor"] == "phone")
            #expect(enrolledClaims["firebase"]?["sign_in_provider"] == "password")

            let enrolledToken = try #require(enrolled.string("idToken"))
            let info = try #require(try await c.lookup(enrolledToken)["users"]?[0]?["mfaInfo"]?[0])
            #expect(info["phoneInfo"]?.stringValue == Self.number)
            #expect(info["displayName"] == "work phone")
            let enrollmentID = try #require(info["mfaEnrollmentId"]?.stringValue)
            #expect(enrolledClaims["firebase"]?["second_factor_identifier"]?.stringValue == enrollmentID)
            #expect(info["enrolledAt"]?.stringValue?.hasSuffix("Z") == true)

            // The first factor alone gets a challenge, not a session.
            let first = try await c.signIn("mfa@example.com", "correct horse")
            #expect(first.status == 200)
            #expect(first["idToken"] == nil && first["refreshToken"] == nil)
            #expect(first.string("localId") == uid)
            let pending = try #require(first.string("mfaPendingCredential"))
            #expect(first["mfaInfo"]?[0]?["phoneInfo"]?.stringValue == Self.masked)
            #expect(first["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue == enrollmentID)
            #expect(first["mfaInfo"]?[0]?["unobfuscatedPhoneInfo"] == nil)

            let started = try await c.post(
                "/v2/accounts/mfaSignIn:start",
                [
                    "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID),
                    "phoneSignInInfo": [:],
                ])
            #expect(started.status == 200)
            let session = try #require(started["phoneResponseInfo"]?["sessionInfo"]?.stringValue)
            #expect(try await h.store.outbox(projectID: h.projectID).last?.phoneNumber == Self.number)

            let wrong = try await c.post(
                "/v2/accounts/mfaSignIn:finalize",
                [
                    "mfaPendingCredential": .string(pending),
                    "phoneVerificationInfo": ["sessionInfo": .string(session), "code": "000000"],
                ])
            #expect(wrong.errorCode == "INVALID_CODE")
            let finalize: JSONValue = [
                "mfaPendingCredential": .string(pending),
                "phoneVerificationInfo": [
                    "sessionInfo": .string(session), "code": .string(try await Self.lastCode(h)),
                ],
            ]
            let done = try await c.post("/v2/accounts/mfaSignIn:finalize", finalize)
            #expect(done.status == 200)
            let tokenClaims = try claims(of: done.string("idToken"))
            #expect(tokenClaims["sub"]?.stringValue == uid)
            #expect(tokenClaims["firebase"]?["sign_in_provider"] == "password")
            #expect(tokenClaims["firebase"]?["sign_in_second_factor"] == "phone")
            #expect(tokenClaims["firebase"]?["second_factor_identifier"]?.stringValue == enrollmentID)

            // The session keeps its second factor across refreshes.
            h.clock.advance(5)
            let refreshed = try await c.refresh(try #require(done.string("refreshToken")))
            #expect(try claims(of: refreshed.string("id_token"))["firebase"]?["sign_in_second_factor"] == "phone")

            // The pending credential worked once.
            let again = try await c.post(
                "/v2/accounts/mfaSignIn:start",
                ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID)])
            #expect(again.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")

            // The account's own phone number is no first factor once it has second factors: no code is sent to it,
            // and one sent before it became the account's does not sign in.
            let sent = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+16505550199"])
            var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            user.phoneNumber = "+16505550199"
            try await h.store.updateUser(user)
            let phoneFirst = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                [
                    "sessionInfo": .string(try #require(sent.string("sessionInfo"))),
                    "code": .string(try await Self.lastCode(h)),
                ])
            #expect(phoneFirst.errorCode == "UNSUPPORTED_FIRST_FACTOR")
            let refused = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+16505550199"])
            #expect(refused.errorCode == "UNSUPPORTED_FIRST_FACTOR")
        }
    }

    /// The account's own number may also be its second factor: a second factor's code is no first factor.
    @Test func anAccountsOwnNumberCanBeItsSecondFactor() async throws {
        let h = try await Self.harness()
        try await h.run { c in
            let (uid, idToken) = try await Self.verifiedUser(c, h)
            var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            user.phoneNumber = Self.number
            try await h.store.updateUser(user)
            #expect(try await Self.enrollPhone(c, h, idToken: idToken).status == 200)
            let challenge = try await c.signIn("mfa@example.com", "correct horse")
            let started = try await c.post(
                "/v2/accounts/mfaSignIn:start",
                [
                    "mfaPendingCredential": .string(try #require(challenge.string("mfaPendingCredential"))),
                    "mfaEnrollmentId": .string(try #require(challenge["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue)),
                ])
            #expect(started.status == 200, "\(started.json)")
            // As a first factor the number is refused.
            let sent = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
            #expect(sent.errorCode == "UNSUPPORTED_FIRST_FACTOR")
        }
    }

    @Test func pendingCredentialExpiresAndIsBoundToItsUser() async throws {
        let h = try await Self.harness()
        try await h.run { c in
            let (_, idToken) = try await Self.verifiedUser(c, h)
            #expect(try await Self.enrollPhone(c, h, idToken: idToken).status == 200)
            let lookup = try await c.lookup(idToken)
            let enrollmentID = try #require(lookup["users"]?[0]?["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue)

            let first = try await c.signIn("mfa@example.com", "correct horse")
            let pending = try #require(first.string("mfaPendingCredential"))
            h.clock.advance(AuthEngine.pendingSecondFactorLifetime + 1)
            let expired = try await c.post(
                "/v2/accounts/mfaSignIn:start",
                ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID)])
            #expect(expired.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")

            // Ending the user's sessions (a password change, an admin revocation) ends pending ones too.
            let second = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            h.clock.advance(2)
            var user = try #require(try await h.store.user(projectID: h.projectID, email: "mfa@example.com"))
            user.validSince = Date(timeIntervalSince1970: Double(h.clock.authClock.now().secondsSince1970))
            try await h.store.updateUser(user)
            let revoked = try await c.post(
                "/v2/accounts/mfaSignIn:start",
                ["mfaPendingCredential": .string(second), "mfaEnrollmentId": .string(enrollmentID)])
            #expect(revoked.errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        }
    }

    /// A password change ends a pending sign-in begun with the old password, also within the same second (where
    /// `validSince`, in whole seconds, cannot tell them apart); a first factor after the change still counts.
    @Test func aPasswordChangeInTheSameSecondEndsAPendingSignIn() async throws {
        let h = try await Self.harness()
        let now = h.clock.authClock.now().timeIntervalSince1970
        h.clock.advance(1.1 - now.truncatingRemainder(dividingBy: 1))
        try await h.run { c in
            let (_, idToken) = try await Self.verifiedUser(c, h)
            let enrolled = try await Self.enrollPhone(c, h, idToken: idToken)
            let ownToken = try #require(enrolled.string("idToken"))
            let lookup = try await c.lookup(ownToken)
            let enrollmentID = try #require(lookup["users"]?[0]?["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue)
            func start(_ pending: String) async throws -> Client.Reply {
                try await c.post(
                    "/v2/accounts/mfaSignIn:start",
                    ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID)])
            }

            let pending = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            h.clock.advance(0.3)
            let changed = try await c.post(
                "/v1/accounts:update", ["idToken": .string(ownToken), "password": "battery staple"])
            #expect(changed.status == 200, "\(changed.json)")
            #expect(try await start(pending).errorCode == "INVALID_MFA_PENDING_CREDENTIAL")

            let after = try #require(
                try await c.signIn("mfa@example.com", "battery staple").string("mfaPendingCredential"))
            #expect(try await start(after).status == 200)
        }
    }

    @Test func firebaseErrorsOfEachEndpoint() async throws {
        let h = try await Self.harness()
        try await h.run { c in
            let (_, idToken) = try await Self.verifiedUser(c, h)
            func post(_ method: String, _ body: JSONValue) async throws -> String? {
                try await c.post("/v2/accounts/\(method)", body).errorCode
            }
            #expect(
                try await post("mfaEnrollment:start", ["phoneEnrollmentInfo": ["phoneNumber": "+16505550101"]])
                    == "MISSING_ID_TOKEN")
            #expect(
                try await post(
                    "mfaEnrollment:start", ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "12"]])
                    == "INVALID_PHONE_NUMBER")
            #expect(try await post("mfaEnrollment:start", ["idToken": .string(idToken)]) == "INVALID_ARGUMENT")
            #expect(try await post("mfaEnrollment:finalize", ["idToken": .string(idToken)]) == "INVALID_ARGUMENT")
            #expect(
                try await post(
                    "mfaEnrollment:finalize",
                    ["idToken": .string(idToken), "phoneVerificationInfo": ["sessionInfo": "s"]]) == "MISSING_CODE")
            #expect(
                try await post(
                    "mfaEnrollment:finalize",
                    ["idToken": .string(idToken), "phoneVerificationInfo": ["code": "123456"]])
                    == "MISSING_SESSION_INFO")
            #expect(
                try await post(
                    "mfaEnrollment:finalize",
                    ["idToken": .string(idToken), "phoneVerificationInfo": ["sessionInfo": "nope", "code": "123456"]])
                    == "INVALID_SESSION_INFO")

            let enrolled = try await Self.enrollPhone(c, h, idToken: idToken)
            let fresh = try #require(enrolled.string("idToken"))
            #expect(
                try await post(
                    "mfaEnrollment:start",
                    ["idToken": .string(fresh), "phoneEnrollmentInfo": ["phoneNumber": "+16505550101"]])
                    == "SECOND_FACTOR_EXISTS")
            #expect(
                try await post("mfaEnrollment:withdraw", ["idToken": .string(fresh)]) == "MISSING_MFA_ENROLLMENT_ID")
            #expect(
                try await post("mfaEnrollment:withdraw", ["idToken": .string(fresh), "mfaEnrollmentId": "nope"])
                    == "MFA_ENROLLMENT_NOT_FOUND")

            let pending = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            #expect(try await post("mfaSignIn:start", ["mfaEnrollmentId": "x"]) == "MISSING_MFA_PENDING_CREDENTIAL")
            #expect(
                try await post("mfaSignIn:start", ["mfaPendingCredential": .string(pending)])
                    == "MISSING_MFA_ENROLLMENT_ID")
            #expect(
                try await post("mfaSignIn:start", ["mfaPendingCredential": "forged", "mfaEnrollmentId": "x"])
                    == "INVALID_MFA_PENDING_CREDENTIAL")
            #expect(
                try await post("mfaSignIn:start", ["mfaPendingCredential": .string(pending), "mfaEnrollmentId": "x"])
                    == "MFA_ENROLLMENT_NOT_FOUND")
            #expect(
                try await post("mfaSignIn:finalize", ["phoneVerificationInfo": ["sessionInfo": "s", "code": "1"]])
                    == "MISSING_CREDENTIAL")
            #expect(
                try await post("mfaSignIn:finalize", ["mfaPendingCredential": .string(pending)]) == "INVALID_ARGUMENT")
            #expect(
                try await post(
                    "mfaSignIn:finalize",
                    ["mfaPendingCredential": .string(pending), "totpVerificationInfo": ["verificationCode": "123456"]])
                    == "MISSING_MFA_ENROLLMENT_ID")

            // Withdrawing answers fresh tokens without the factor; sign-in is single-factor again.
            let enrollmentID = try #require(
                try await c.lookup(fresh)["users"]?[0]?["mfaInfo"]?[0]?["mfaEnrollmentId"]?.stringValue)
            let withdrawn = try await c.post(
                "/v2/accounts/mfaEnrollment:withdraw",
                ["idToken": .string(fresh), "mfaEnrollmentId": .string(enrollmentID)])
            #expect(withdrawn.status == 200)
            #expect(try claims(of: withdrawn.string("idToken"))["firebase"]?["sign_in_second_factor"] == nil)
            let withdrawnToken = try #require(withdrawn.string("idToken"))
            #expect(try await c.lookup(withdrawnToken)["users"]?[0]?["mfaInfo"] == nil)
            #expect(try await c.signIn("mfa@example.com", "correct horse").string("idToken") != nil)
        }
    }

    @Test func enrollmentRules() async throws {
        let h = try await Self.harness()
        try await h.run { c in
            // An unverified e-mail cannot enroll.
            let unverified = try await c.signUp(email: "new@example.com", password: "correct horse")
            let r = try await c.post(
                "/v2/accounts/mfaEnrollment:start",
                ["idToken": .string(try #require(unverified.string("idToken"))), "totpEnrollmentInfo": [:]])
            #expect(r.errorCode == "UNVERIFIED_EMAIL")
            // Anonymous is no first factor for MFA.
            let anonymous = try await c.signUp()
            let a = try await c.post(
                "/v2/accounts/mfaEnrollment:start",
                ["idToken": .string(try #require(anonymous.string("idToken"))), "totpEnrollmentInfo": [:]])
            #expect(a.errorCode == "UNSUPPORTED_FIRST_FACTOR")
            // At most five factors.
            let (uid, idToken) = try await Self.verifiedUser(c, h)
            var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            user.mfaEnrollments = (1...5).map {
                MFAEnrollment(id: "e\($0)", displayName: nil, enrolledAt: Date(), factor: .phone("+1650555020\($0)"))
            }
            try await h.store.updateUser(user)
            let sixth = try await c.post(
                "/v2/accounts/mfaEnrollment:start",
                ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+16505550101"]])
            #expect(sixth.errorCode == "SECOND_FACTOR_LIMIT_EXCEEDED")
            // A stale sign-in must sign in again first.
            h.clock.advance(301)
            let stale = try await c.post(
                "/v2/accounts/mfaEnrollment:withdraw", ["idToken": .string(idToken), "mfaEnrollmentId": "e1"])
            #expect(stale.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        }
        // With MFA off for the project nothing can be enrolled, and enrolled users are not challenged.
        let off = try await Harness()
        try await off.run { c in
            let (uid, idToken) = try await Self.verifiedUser(c, off)
            let r = try await c.post(
                "/v2/accounts/mfaEnrollment:start",
                ["idToken": .string(idToken), "phoneEnrollmentInfo": ["phoneNumber": "+16505550101"]])
            #expect(r.errorCode == "OPERATION_NOT_ALLOWED")
            let t = try await c.post(
                "/v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
            #expect(t.errorCode == "OPERATION_NOT_ALLOWED")
            var user = try #require(try await off.store.user(projectID: off.projectID, uid: uid))
            user.mfaEnrollments = [
                MFAEnrollment(id: "e1", displayName: nil, enrolledAt: Date(), factor: .phone(Self.number))
            ]
            try await off.store.updateUser(user)
            #expect(try await c.signIn("mfa@example.com", "correct horse").string("idToken") != nil)
        }
    }

    @Test func totpEnrollmentSignInWindowAndReplay() async throws {
        let h = try await Self.harness(adjacent: 1)
        // Attempts count in fixed 15-minute windows. Start just after one begins, so the clock steps below stay
        // inside it whatever the time of day (a run that crossed a window's end saw its earlier guesses forgotten).
        let now = h.clock.authClock.now().timeIntervalSince1970
        h.clock.advance(900 - now.truncatingRemainder(dividingBy: 900) + 1)
        try await h.run { c in
            let (_, idToken) = try await Self.verifiedUser(c, h)
            let started = try await c.post(
                "/v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
            #expect(started.status == 200)
            let info = try #require(started["totpSessionInfo"])
            let secret = try #require(info["sharedSecretKey"]?.stringValue)
            #expect(Base32.decode(secret)?.count == 20)
            #expect(info["verificationCodeLength"] == 6)
            #expect(info["hashingAlgorithm"] == "SHA1")
            #expect(info["periodSec"] == 30)
            #expect(info["finalizeEnrollmentTime"]?.stringValue != nil)
            let session = try #require(info["sessionInfo"]?.stringValue)

            let wrong = try await c.post(
                "/v2/accounts/mfaEnrollment:finalize",
                [
                    "idToken": .string(idToken),
                    "totpVerificationInfo": ["sessionInfo": .string(session), "verificationCode": "12345"],
                ])
            #expect(wrong.errorCode == "INVALID_CODE")
            let enrolled = try await c.post(
                "/v2/accounts/mfaEnrollment:finalize",
                [
                    "idToken": .string(idToken), "displayName": "authenticator",
                    "totpVerificationInfo": [
                        "sessionInfo": .string(session),
                        "verificationCode": .string(try Self.totpCode(h, secret: secret)),
                    ],
                ])
            #expect(enrolled.status == 200)
            #expect(try claims(of: enrolled.string("idToken"))["firebase"]?["sign_in_second_factor"] == "totp")
            let enrolledToken = try #require(enrolled.string("idToken"))
            let info2 = try #require(try await c.lookup(enrolledToken)["users"]?[0]?["mfaInfo"]?[0])
            #expect(info2["totpInfo"] == [:])
            #expect(info2["phoneInfo"] == nil)
            let enrollmentID = try #require(info2["mfaEnrollmentId"]?.stringValue)

            func finalize(_ pending: String, _ code: String) async throws -> Client.Reply {
                try await c.post(
                    "/v2/accounts/mfaSignIn:finalize",
                    [
                        "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(enrollmentID),
                        "totpVerificationInfo": ["verificationCode": .string(code)],
                    ])
            }
            let first = try await c.signIn("mfa@example.com", "correct horse")
            let pending = try #require(first.string("mfaPendingCredential"))
            #expect(first["mfaInfo"]?[0]?["totpInfo"] == [:])
            // The enrollment's code is used; it cannot sign in.
            #expect(try await finalize(pending, try Self.totpCode(h, secret: secret)).errorCode == "INVALID_CODE")
            // Two steps back is outside a window of one.
            #expect(
                try await finalize(pending, try Self.totpCode(h, secret: secret, offset: -2)).errorCode
                    == "INVALID_CODE")
            // One step ahead (a fast phone clock) is inside it.
            let done = try await finalize(pending, try Self.totpCode(h, secret: secret, offset: 1))
            #expect(done.status == 200)
            let tokenClaims = try claims(of: done.string("idToken"))
            #expect(tokenClaims["firebase"]?["sign_in_second_factor"] == "totp")
            #expect(tokenClaims["firebase"]?["second_factor_identifier"]?.stringValue == enrollmentID)

            // The same code again, with a new pending credential, is a replay.
            let next = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            #expect(
                try await finalize(next, try Self.totpCode(h, secret: secret, offset: 1)).errorCode == "INVALID_CODE")
            h.clock.advance(60)
            #expect(try await finalize(next, try Self.totpCode(h, secret: secret)).status == 200)

            // Five wrong codes drop the pending credential's chances.
            let guessed = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            for _ in 0..<5 { #expect(try await finalize(guessed, "000000").errorCode == "INVALID_CODE") }
            h.clock.advance(30)
            #expect(
                try await finalize(guessed, try Self.totpCode(h, secret: secret)).errorCode
                    == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // New pending credentials do not buy more guesses: the user's limit (10 in 15 minutes) holds across them.
            let another = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            // Seven wrong codes so far (the enrollment's typo, two steps back, five guesses): three more reach ten.
            for _ in 0..<3 { #expect(try await finalize(another, "000000").errorCode == "INVALID_CODE") }
            let third = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            #expect(try await finalize(third, "000000").errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // A quarter of an hour later the user may try again.
            h.clock.advance(901)
            let later = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            #expect(try await finalize(later, try Self.totpCode(h, secret: secret)).status == 200)
        }
    }

    @Test func totpSecretIsSealedWithTheKeyEncryptionKey() async throws {
        let kek = try KeyEncryptionKey(base64: Data(repeating: 7, count: 32).base64EncodedString())
        let h = try await Self.harness(kek: kek)
        try await h.run { c in
            let (uid, idToken) = try await Self.verifiedUser(c, h)
            let started = try await c.post(
                "/v2/accounts/mfaEnrollment:start", ["idToken": .string(idToken), "totpEnrollmentInfo": [:]])
            let secret = try #require(started["totpSessionInfo"]?["sharedSecretKey"]?.stringValue)
            let session = try #require(started["totpSessionInfo"]?["sessionInfo"]?.stringValue)
            let enrolled = try await c.post(
                "/v2/accounts/mfaEnrollment:finalize",
                [
                    "idToken": .string(idToken),
                    "totpVerificationInfo": [
                        "sessionInfo": .string(session),
                        "verificationCode": .string(try Self.totpCode(h, secret: secret)),
                    ],
                ])
            #expect(enrolled.status == 200)
            let stored = try #require(try await h.store.user(projectID: h.projectID, uid: uid)?.mfaEnrollments.first)
            guard case .totp(let sealed) = stored.factor else { Issue.record("not a TOTP factor"); return }
            #expect(sealed.hasPrefix(MFAEnrollment.sealedPrefix))
            #expect(!sealed.contains(secret))
            // And it still verifies.
            let pending = try #require(
                try await c.signIn("mfa@example.com", "correct horse").string("mfaPendingCredential"))
            h.clock.advance(30)
            let done = try await c.post(
                "/v2/accounts/mfaSignIn:finalize",
                [
                    "mfaPendingCredential": .string(pending), "mfaEnrollmentId": .string(stored.id),
                    "totpVerificationInfo": ["verificationCode": .string(try Self.totpCode(h, secret: secret))],
                ])
            #expect(done.status == 200)
        }
    }

    @Test func federatedFirstFactorIsChallengedToo() async throws {
        let h = try await Self.harness(emulator: true)
        let google = #"{"sub":"g-1","email":"fed@example.com","email_verified":true}"#
        @Sendable func signInWithGoogle(_ c: Client) async throws -> Client.Reply {
            try await c.post(
                "/v1/accounts:signInWithIdp",
                [
                    "postBody": .string(
                        "providerId=google.com&id_token=\(google.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                    ),
                    "requestUri": "http://localhost", "returnSecureToken": true,
                ])
        }
        try await h.run { c in
            let first = try await signInWithGoogle(c)
            let idToken = try #require(first.string("idToken"))
            #expect(try await Self.enrollPhone(c, h, idToken: idToken).status == 200)
            let challenged = try await signInWithGoogle(c)
            #expect(challenged.status == 200)
            #expect(challenged["idToken"] == nil)
            #expect(challenged.string("mfaPendingCredential") != nil)
            #expect(challenged["mfaInfo"]?[0]?["phoneInfo"]?.stringValue == Self.masked)
        }
    }

    @Test func adminsSeeSetAndImportSecondFactors() async throws {
        let h = try await Self.harness(emulator: true)
        try await h.run { c in
            let owner = "owner"
            let base = "/v1/projects/\(h.projectID)"
            let created = try await c.admin(
                "\(base)/accounts",
                [
                    "email": "admin-made@example.com", "emailVerified": true,
                    "mfaInfo": [["phoneInfo": "+16505550111", "displayName": "desk"]],
                ], token: owner)
            #expect(created.status == 200)
            let uid = try #require(created.string("localId"))
            let looked = try await c.admin("\(base)/accounts:lookup", ["localId": [.string(uid)]], token: owner)
            let factor = try #require(looked["users"]?[0]?["mfaInfo"]?[0])
            #expect(factor["phoneInfo"] == "+16505550111")
            #expect(factor["displayName"] == "desk")
            #expect(factor["mfaEnrollmentId"]?.stringValue?.isEmpty == false)

            let updated = try await c.admin(
                "\(base)/accounts:update",
                [
                    "localId": .string(uid),
                    "mfa": [
                        "enrollments": [
                            [
                                "mfaEnrollmentId": "keep-1", "phoneInfo": "+16505550112",
                                "enrolledAt": "2024-05-01T10:00:00Z",
                            ],
                            ["mfaEnrollmentId": "keep-2", "phoneInfo": "+16505550113"],
                        ]
                    ],
                ], token: owner)
            #expect(updated.status == 200)
            let stored = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            #expect(stored.mfaEnrollments.map(\.id) == ["keep-1", "keep-2"])
            #expect(stored.mfaEnrollments[0].enrolledAt == Date(timeIntervalSince1970: 1_714_557_600))

            let duplicate = try await c.admin(
                "\(base)/accounts:update",
                [
                    "localId": .string(uid),
                    "mfa": [
                        "enrollments": [
                            ["mfaEnrollmentId": "a", "phoneInfo": "+16505550112"],
                            ["mfaEnrollmentId": "a", "phoneInfo": "+16505550113"],
                        ]
                    ],
                ], token: owner)
            #expect(duplicate.errorCode == "DUPLICATE_MFA_ENROLLMENT_ID")
            let badNumber = try await c.admin(
                "\(base)/accounts:update",
                ["localId": .string(uid), "mfa": ["enrollments": [["phoneInfo": "nope"]]]], token: owner)
            #expect(badNumber.errorCode == "INVALID_MFA_PHONE_NUMBER")

            let listed = try await c.admin("\(base)/accounts:batchGet?maxResults=10", token: owner, method: .get)
            #expect(listed["users"]?[0]?["mfaInfo"]?.arrayValue?.count == 2)

            let cleared = try await c.admin(
                "\(base)/accounts:update", ["localId": .string(uid), "mfa": [:]], token: owner)
            #expect(cleared.status == 200)
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.mfaEnrollments.isEmpty == true)

            let imported = try await c.admin(
                "\(base)/accounts:batchCreate",
                [
                    "users": [
                        [
                            // Firebase imports second factors only with a verified address.
                            "localId": "imp-1", "email": "imp@example.com", "emailVerified": true,
                            "mfaInfo": [
                                ["mfaEnrollmentId": "imp-e", "phoneInfo": "+16505550114", "displayName": "old phone"]
                            ],
                        ]
                    ]
                ],
                token: owner)
            #expect(imported.status == 200)
            #expect(imported["error"] == [])
            let importedUser = try #require(try await h.store.user(projectID: h.projectID, uid: "imp-1"))
            #expect(
                importedUser.mfaEnrollments == [
                    MFAEnrollment(
                        id: "imp-e", displayName: "old phone", enrolledAt: importedUser.mfaEnrollments[0].enrolledAt,
                        factor: .phone("+16505550114"))
                ])
            let exported = UserExportFormat.entry(importedUser)
            #expect(exported["mfaInfo"]?[0]?["phoneInfo"] == "+16505550114")
        }
    }
}
