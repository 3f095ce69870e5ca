import Foundation
import HearthCore
import Testing

@Suite("accounts:signUp and accounts:signInWithPassword")
struct SignUpAndSignInTests {
    @Test func anonymousSignUpIssuesTokens() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.signUp()
            #expect(r.status == 200)
            #expect(r.string("kind") == "identitytoolkit#SignupNewUserResponse")
            #expect(r.string("expiresIn") == "3600")
            #expect(r["email"] == nil)
            let uid = try #require(r.string("localId"))
            #expect(uid.count == 28)
            let claims = try claims(of: r.string("idToken"))
            #expect(claims["sub"]?.stringValue == uid)
            #expect(claims["user_id"]?.stringValue == uid)
            #expect(claims["aud"]?.stringValue == h.projectID)
            #expect(claims["iss"]?.stringValue == "https://securetoken.google.com/\(h.projectID)")
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "anonymous")
            #expect(claims["firebase"]?["identities"] == .object([:]))
            let iat = try #require(claims["iat"]?.doubleValue)
            #expect(claims["exp"]?.doubleValue == iat + 3600)
            #expect(r.string("refreshToken")?.hasPrefix("hrt2_") == true)
        }
    }

    @Test func emailSignUpStoresLowerCasedEmailAndHashedPassword() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.signUp(email: "Ada@Example.COM", password: "correct horse")
            #expect(r.status == 200)
            #expect(r.string("email") == "ada@example.com")
            let claims = try claims(of: r.string("idToken"))
            #expect(claims["email"]?.stringValue == "ada@example.com")
            #expect(claims["email_verified"]?.boolValue == false)
            #expect(claims["firebase"]?["identities"]?["email"] == ["ada@example.com"])
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "password")

            let stored = try #require(try await h.store.user(projectID: h.projectID, email: "ada@example.com"))
            let hash = try #require(stored.passwordHash)
            #expect(hash.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
            #expect(!hash.contains("correct horse"))
        }
    }

    @Test func duplicateEmailIsRefusedCaseInsensitively() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "grace@example.com", password: "secret1")
            let r = try await c.signUp(email: "GRACE@example.com", password: "secret2")
            #expect(r.status == 400)
            #expect(r.errorCode == "EMAIL_EXISTS")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test(arguments: [
        (#"{"email":"a@b.co"}"#, "MISSING_PASSWORD"),
        (#"{"password":"secret1"}"#, "MISSING_EMAIL"),
        (#"{"email":"not-an-email","password":"secret1"}"#, "INVALID_EMAIL"),
        (#"{"email":"a@b.co","password":"12345"}"#, "WEAK_PASSWORD"),
    ])
    func badSignUpsAreRefusedAndPersistNothing(body: String, code: String) async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v1/accounts:signUp", method: .post, body: .init(string: body))
            #expect(r.status == 400)
            #expect(r.errorCode == code)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }

    @Test func weakPasswordCarriesFirebaseDetail() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.signUp(email: "a@b.co", password: "123")
            #expect(
                r.json["error"]?["message"]?.stringValue == "WEAK_PASSWORD : Password should be at least 6 characters")
        }
    }

    @Test func passwordPolicyIsConfigurable() async throws {
        let h = try await Harness { $0.passwordPolicy = PasswordPolicy(minLength: 10, maxLength: 12) }
        try await h.run { (c: Client) async throws in
            #expect(try await c.signUp(email: "a@b.co", password: "123456789").errorCode == "WEAK_PASSWORD")
            #expect(
                try await c.signUp(email: "a@b.co", password: "1234567890123").errorCode
                    == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(try await c.signUp(email: "a@b.co", password: "1234567890").status == 200)
        }
    }

    @Test func anonymousUserUpgradesToEmailKeepingUid() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let anon = try await c.signUp()
            let uid = try #require(anon.string("localId"))
            let r = try await c.post(
                "/v1/accounts:signUp",
                ["idToken": .string(anon.string("idToken")!), "email": "linus@example.com", "password": "hunter22"])
            #expect(r.status == 200)
            #expect(r.string("localId") == uid)
            #expect(try claims(of: r.string("idToken"))["firebase"]?["sign_in_provider"]?.stringValue == "password")
            let signIn = try await c.signIn("linus@example.com", "hunter22")
            #expect(signIn.string("localId") == uid)
        }
    }

    @Test func signInWithCorrectPassword() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "kay@example.com", password: "s3cret!!")
            let r = try await c.signIn("KAY@example.com", "s3cret!!")
            #expect(r.status == 200)
            #expect(r.string("kind") == "identitytoolkit#VerifyPasswordResponse")
            #expect(r["registered"] == .bool(true))
            #expect(r.string("localId") == up.string("localId"))
            #expect(r.string("expiresIn") == "3600")
            #expect(r.string("refreshToken") != up.string("refreshToken"))
        }
    }

    @Test func enumerationProtectionHidesWhetherTheEmailExists() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "kay@example.com", password: "s3cret!!")
            let wrong = try await c.signIn("kay@example.com", "nope-nope")
            let unknown = try await c.signIn("nobody@example.com", "nope-nope")
            #expect(wrong.status == 400)
            #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(unknown.errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(wrong.json == unknown.json)
        }
    }

    @Test func withoutEnumerationProtectionErrorsAreSpecific() async throws {
        let h = try await Harness { $0.emailEnumerationProtection = false }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "kay@example.com", password: "s3cret!!")
            #expect(try await c.signIn("kay@example.com", "nope-nope").errorCode == "INVALID_PASSWORD")
            #expect(try await c.signIn("nobody@example.com", "nope-nope").errorCode == "EMAIL_NOT_FOUND")
        }
    }

    @Test func disabledUserCannotSignIn() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "off@example.com", password: "s3cret!!")
            var user = try #require(try await h.store.user(projectID: h.projectID, email: "off@example.com"))
            user.disabled = true
            try await h.store.updateUser(user)
            #expect(try await c.signIn("off@example.com", "s3cret!!").errorCode == "USER_DISABLED")
            // A wrong password must not reveal that the account exists and is disabled.
            #expect(try await c.signIn("off@example.com", "wrong-pass").errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func repeatedFailuresLockTheAccountForAWhile() async throws {
        let h = try await Harness { $0.rateLimits.failedPasswordsPerAccount = 3 }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "target@example.com", password: "right-password")
            for _ in 0..<3 {
                #expect(try await c.signIn("target@example.com", "wrong").errorCode == "INVALID_LOGIN_CREDENTIALS")
            }
            let locked = try await c.signIn("target@example.com", "right-password")
            #expect(locked.status == 400)
            #expect(locked.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            h.clock.advance(16 * 60)
            #expect(try await c.signIn("target@example.com", "right-password").status == 200)
        }
    }

    @Test func repeatedFailuresFromOneIPAreLimitedAcrossAccounts() async throws {
        let h = try await Harness {
            $0.rateLimits.failedPasswordsPerIP = 3
            $0.rateLimits.failedPasswordsPerAccount = 0
        }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "victim@example.com", password: "right-password")
            for i in 0..<3 { _ = try await c.signIn("guess\(i)@example.com", "wrong") }
            let r = try await c.signIn("victim@example.com", "right-password")
            #expect(r.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test func signUpsPerIPAreLimited() async throws {
        let h = try await Harness { $0.rateLimits.signUpsPerIPPerHour = 2 }
        try await h.run { (c: Client) async throws in
            #expect(try await c.signUp().status == 200)
            #expect(try await c.signUp().status == 200)
            #expect(try await c.signUp().errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 2)
        }
    }

    @Test func importedHashSignsInAndIsReplacedByANativeOne() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "migrated@example.com", password: "placeholder")
            var user = try #require(try await h.store.user(projectID: h.projectID, email: "migrated@example.com"))
            // SHA-256 of salt "NaCl" followed by "password", as Firebase's import describes it.
            user.passwordHash =
                "$firebase-sha256$rounds=1,order=salt-first$TmFDbA$sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM"
            try await h.store.updateUser(user)
            #expect(try await c.signIn("migrated@example.com", "wrong").errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await c.signIn("migrated@example.com", "password").status == 200)
            let after = try #require(try await h.store.user(projectID: h.projectID, email: "migrated@example.com"))
            #expect(after.passwordHash?.hasPrefix("$scrypt$") == true)
            #expect(try await c.signIn("migrated@example.com", "password").status == 200)
        }
    }

    @Test func weakerHashIsUpgradedOnSignIn() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "old@example.com", password: "legacy-pass")
            var user = try #require(try await h.store.user(projectID: h.projectID, email: "old@example.com"))
            user.passwordHash =
                PasswordHash.make(
                    password: "legacy-pass", parameters: ScryptParameters(logN: 11, r: 8, p: 1), random: .system
                ).encoded
            try await h.store.updateUser(user)
            #expect(try await c.signIn("old@example.com", "legacy-pass").status == 200)
            let after = try #require(try await h.store.user(projectID: h.projectID, email: "old@example.com"))
            #expect(after.passwordHash?.hasPrefix("$scrypt$ln=10,") == true)
            #expect(try await c.signIn("old@example.com", "legacy-pass").status == 200)
        }
    }
}
