import Foundation
import HearthCore
import HearthEngine
import HearthSQLite
import HearthStore
import HearthTokens
import Hummingbird
import Testing

@Suite("Custom tokens")
struct CustomTokenTests {
    func signIn(_ c: Client, _ token: String) async throws -> Client.Reply {
        try await c.post("/v1/accounts:signInWithCustomToken", ["token": .string(token), "returnSecureToken": true])
    }

    @Test func aServiceAccountsTokenSignsTheUserUpThenInWithItsClaimsKeptAcrossRefreshes() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { (c: Client) async throws in
            let now = h.clock.authClock.now()
            let first = try await signIn(c, try account.customToken(uid: "kakao:42", claims: ["plan": "pro"], now: now))
            #expect(first.status == 200)
            #expect(first["isNewUser"] == .bool(true))
            let idClaims = try claims(of: first.string("idToken"))
            #expect(idClaims["sub"]?.stringValue == "kakao:42")
            #expect(idClaims["plan"]?.stringValue == "pro")
            #expect(idClaims["firebase"]?["sign_in_provider"]?.stringValue == "custom")
            let refreshed = try await c.refresh(try #require(first.string("refreshToken")))
            #expect(try claims(of: refreshed.string("id_token"))["plan"]?.stringValue == "pro")

            let second = try await signIn(c, try account.customToken(uid: "kakao:42", now: now))
            #expect(second["isNewUser"] == .bool(false))
            #expect(try claims(of: second.string("idToken"))["plan"] == nil, "claims belong to the token's session")
            #expect(try await h.store.user(projectID: h.projectID, uid: "kakao:42")?.customAuth == true)
        }
    }

    @Test func tokensThatAreNotExactlyRightAreRefused() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        let foreign = try await TestServiceAccount.register(in: h, project: "other-project")
        try await h.run { (c: Client) async throws in
            let now = h.clock.authClock.now()
            let email = JSONValue.string(account.key.clientEmail)
            let cases: [(String, String)] = [
                (
                    try account.sign(["iss": email, "sub": email, "aud": "test-project", "uid": "u"], now: now),
                    "INVALID_CUSTOM_TOKEN"
                ),
                (try account.customToken(uid: "u", now: now, lifetime: 3601), "INVALID_CUSTOM_TOKEN"),
                (try account.customToken(uid: "u", now: now.addingTimeInterval(-4000)), "INVALID_CUSTOM_TOKEN"),
                (try account.customToken(uid: String(repeating: "u", count: 129), now: now), "INVALID_CUSTOM_TOKEN"),
                (try account.customToken(uid: "u", claims: ["firebase": "x"], now: now), "FORBIDDEN_CLAIM"),
                (
                    try account.sign(
                        ["iss": "x@y", "sub": "x@y", "aud": .string(CustomClaims.customTokenAudience), "uid": "u"],
                        now: now), "INVALID_CUSTOM_TOKEN"
                ),
                (try foreign.customToken(uid: "u", now: now), "CREDENTIAL_MISMATCH"),
                (
                    JWS.unsigned(payload: ["aud": .string(CustomClaims.customTokenAudience), "uid": "u"]),
                    "INVALID_CUSTOM_TOKEN"
                ),
                ("garbage", "INVALID_CUSTOM_TOKEN"),
                ("", "MISSING_CUSTOM_TOKEN"),
            ]
            for (token, code) in cases {
                let reply = try await signIn(c, token)
                #expect(reply.status == 400)
                #expect(reply.errorCode == code, "\(token.prefix(40))")
            }
            // A token of another project's key is forged for this one: with a tampered signature it is simply invalid.
            var forged = try account.customToken(uid: "u", now: now)
            forged.removeLast(4)
            forged += "AAAA"
            #expect(try await signIn(c, forged).errorCode == "INVALID_CUSTOM_TOKEN")
            _ = try await h.store.revokeServiceAccountKey(keyID: account.key.keyID, at: now)
            #expect(
                try await signIn(c, try account.customToken(uid: "u", now: now)).errorCode == "INVALID_CUSTOM_TOKEN")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }
}

@Suite("User import")
struct UserImportTests {
    /// github.com/firebase/scrypt's published project parameters and the Admin SDKs' test user ("password", "NaCl").
    static let scryptImport: JSONValue = [
        "hashAlgorithm": "SCRYPT",
        "signerKey": "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
        "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14,
    ]
    static let scryptUser: JSONValue = [
        "localId": "imported-1", "email": "imported@example.com", "salt": "TmFDbA==",
        "passwordHash": "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T_rcaGieN04q_ZPJ08WhJEHGjj9lz_2TT-_86N5VjVoc5DdBhBiw",
        "createdAt": "1500000000000", "customAttributes": #"{"role":"editor"}"#,
        "providerUserInfo": [["providerId": "google.com", "rawId": "g-imported", "email": "imported@gmail.com"]],
    ]

    func batch(_ users: [JSONValue], extra: [String: JSONValue] = Self.scryptImport.objectValue!) -> JSONValue {
        var body = extra
        body["users"] = .array(users)
        return .object(body)
    }

    @Test func importedFirebaseScryptUsersSignInWithTheirPasswordAndAreUpgradedOnce() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let path = "/v1/projects/\(h.projectID)/accounts:batchCreate"
            let reply = try await c.admin(path, batch([Self.scryptUser]), token: token)
            #expect(reply.status == 200)
            #expect(reply["error"] == .array([]))
            let stored = try #require(try await h.store.user(projectID: h.projectID, uid: "imported-1"))
            #expect(stored.passwordHash?.hasPrefix("$firebase-scrypt$") == true)
            #expect(stored.createdAt == Date(millisecondsSince1970: 1_500_000_000_000))
            #expect(stored.providers.map(\.rawID) == ["g-imported"])

            #expect(try await c.signIn("imported@example.com", "wrong-password").status == 400)
            let signedIn = try await c.signIn("imported@example.com", "password")
            #expect(signedIn.status == 200)
            #expect(try claims(of: signedIn.string("idToken"))["role"]?.stringValue == "editor")
            let upgraded = try #require(try await h.store.user(projectID: h.projectID, uid: "imported-1"))
            #expect(upgraded.passwordHash?.hasPrefix("$scrypt$") == true, "rehashed natively on first sign-in")
            #expect(try await c.signIn("imported@example.com", "password").status == 200)
        }
    }

    @Test func perEntryErrorsLeaveTheRestImported() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            _ = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts", ["localId": "taken", "email": "taken@example.com"], token: token
            )
            let path = "/v1/projects/\(h.projectID)/accounts:batchCreate"
            let reply = try await c.admin(
                path,
                batch([
                    ["localId": "ok-1", "email": "ok1@example.com"],
                    ["localId": "taken"],
                    ["localId": "bad-email", "email": "not-an-email"],
                    ["localId": "dup-email", "email": "taken@example.com"],
                    ["localId": "claims", "customAttributes": #"{"iss":"x"}"#],
                    ["localId": "bad-hash", "passwordHash": "AAAA", "salt": "AAAA"],
                    ["email": "no-uid@example.com"],
                    ["localId": "ok-2", "phoneNumber": "+16505550199", "disabled": true],
                ]), token: token)
            #expect(reply.status == 200)
            let errors = (reply["error"]?.arrayValue ?? []).map {
                (Int($0["index"]?.doubleValue ?? -1), $0["message"]?.stringValue ?? "")
            }
            #expect(errors.map(\.0) == [1, 2, 3, 4, 5, 6])
            #expect(errors[0].1 == "localId belongs to an existing account - can not overwrite.")
            #expect(errors[3].1 == "Custom claims provided include a reserved claim.")
            #expect(try await h.store.user(projectID: h.projectID, uid: "ok-1") != nil)
            #expect(try await h.store.user(projectID: h.projectID, uid: "ok-2")?.disabled == true)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 3)
        }
    }

    @Test func badBatchesImportNothing() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let path = "/v1/projects/\(h.projectID)/accounts:batchCreate"
            #expect(try await c.admin(path, batch([]), token: token).errorCode == "MISSING_USER_ACCOUNT")
            let tooMany = (0...1000).map { JSONValue.object(["localId": .string("u\($0)")]) }
            #expect(try await c.admin(path, batch(tooMany), token: token).errorCode == "MAXIMUM_USER_COUNT_EXCEEDED")
            #expect(
                try await c.admin(path, batch([["localId": "a"], ["localId": "a"]]), token: token).errorCode
                    == "DUPLICATE_LOCAL_ID")
            #expect(
                try await c.admin(
                    path,
                    batch(
                        [["localId": "a", "email": "x@y.com"], ["localId": "b", "email": "X@y.com"]],
                        extra: ["sanityCheck": true]), token: token
                ).errorCode == "DUPLICATE_EMAIL")
            #expect(
                try await c.admin(path, batch([Self.scryptUser], extra: ["hashAlgorithm": "ROT13"]), token: token)
                    .errorCode == "INVALID_HASH_ALGORITHM")
            #expect(
                try await c.admin(path, batch([Self.scryptUser], extra: [:]), token: token).errorCode
                    == "INVALID_HASH_ALGORITHM")
            #expect(
                try await c.admin(
                    path, batch([Self.scryptUser], extra: ["hashAlgorithm": "SCRYPT", "rounds": 8, "memoryCost": 14]),
                    token: token
                )
                .errorCode == "INVALID_HASH_KEY")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }

    @Test func overwriteReplacesAndEndsEarlierSessions() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let uid = try #require(session.string("localId"))
            h.clock.advance(2)
            let path = "/v1/projects/\(h.projectID)/accounts:batchCreate"
            let body = batch(
                [["localId": .string(uid), "email": "ada@example.com", "displayName": "Imported Ada"]],
                extra: ["allowOverwrite": true])
            #expect(try await c.admin(path, body, token: token)["error"] == .array([]))
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.displayName == "Imported Ada")
            #expect(try await c.refresh(try #require(session.string("refreshToken"))).errorCode == "TOKEN_EXPIRED")
        }
    }
}

@Suite("Session cookies")
struct SessionCookieTests {
    @Test func aSessionCookieCarriesTheIDTokensClaimsUnderTheSessionIssuer() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let idToken = try #require(session.string("idToken"))
            let path = "/v1/projects/\(h.projectID):createSessionCookie"
            let reply = try await c.admin(path, ["idToken": .string(idToken), "validDuration": "3600"], token: token)
            let cookie = try #require(reply.string("sessionCookie"))
            let cookieClaims = try claims(of: cookie)
            #expect(cookieClaims["iss"]?.stringValue == "https://session.firebase.google.com/\(h.projectID)")
            #expect(cookieClaims["sub"] == (try claims(of: idToken))["sub"])
            let iat = try #require(cookieClaims["iat"]?.doubleValue)
            #expect(cookieClaims["exp"]?.doubleValue == iat + 3600)
            let verified = try await h.engine.idTokens.verify(
                cookie, projectID: h.projectID, now: h.clock.authClock.now(), sessionCookie: true)
            #expect(verified.uid == session.string("localId"))
            await #expect(throws: AuthError.self, "a cookie is not an ID token") {
                _ = try await h.engine.idTokens.verify(cookie, projectID: h.projectID, now: h.clock.authClock.now())
            }

            for duration in ["299", "1209601"] {
                #expect(
                    try await c.admin(
                        path, ["idToken": .string(idToken), "validDuration": .string(duration)], token: token
                    ).errorCode == "INVALID_DURATION")
            }
            #expect(try await c.admin(path, ["idToken": "x"], token: token).errorCode == "INVALID_ID_TOKEN")
        }
    }
}

@Suite("Emulator mode")
struct EmulatorModeTests {
    @Test func ownerIsAdminTokensAreUnsignedAndAnyProjectIsServed() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            let signedUp = try await c.post(
                "/v1/projects/any-project/accounts:signUp", ["returnSecureToken": true], key: "whatever")
            #expect(signedUp.status == 200)
            let idToken = try #require(signedUp.string("idToken"))
            #expect(idToken.hasSuffix("."), "unsigned, as the Firebase Auth Emulator issues them")
            let header = try #require(Base64URL.decode(String(idToken.split(separator: ".")[0])))
            #expect(try JSONValue.parse(header)["alg"]?.stringValue == "none")
            let lookup = try await c.post(
                "/v1/projects/any-project/accounts:lookup", ["idToken": .string(idToken)], key: "k")
            #expect(lookup.status == 200, "the emulator accepts its own unsigned tokens")

            let created = try await c.admin("/v1/projects/any-project/accounts", ["localId": "x1"], token: "owner")
            #expect(created.status == 200)
            let list = try await c.admin("/v1/projects/any-project/accounts:batchGet", token: "owner", method: .get)
            #expect(list["users"]?.arrayValue?.count == 2)

            // The emulator also takes unsigned custom tokens.
            let custom = JWS.unsigned(payload: ["aud": .string(CustomClaims.customTokenAudience), "uid": "c1"])
            #expect(
                try await c.post("/v1/projects/any-project/accounts:signInWithCustomToken", ["token": .string(custom)])
                    .status == 200)

            let reset = try await c.send("/emulator/v1/projects/any-project/accounts", method: .delete, key: nil)
            #expect(reset.status == 200)
            #expect(try await h.store.countUsers(projectID: "any-project") == 0)

            let config = try await c.send(
                "/emulator/v1/projects/\(h.projectID)/config", method: .patch,
                body: ByteBuffer(string: #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#), key: nil)
            #expect(config["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(false))
            #expect(h.engine.projects.config(h.projectID)?.emailEnumerationProtection == false)
            let duplicates = try await c.send(
                "/emulator/v1/projects/\(h.projectID)/config", method: .patch,
                body: ByteBuffer(string: #"{"signIn":{"allowDuplicateEmails":true}}"#), key: nil)
            #expect(duplicates["signIn"]?["allowDuplicateEmails"] == .bool(true))
            #expect(h.engine.projects.config(h.projectID)?.federation.allowDuplicateEmails == true)
            #expect(h.engine.projects.config(h.projectID)?.emailEnumerationProtection == false, "earlier change kept")
            #expect(
                try await c.send("/emulator/v1/projects/\(h.projectID)/oobCodes", method: .get, key: nil)["oobCodes"]
                    == .array([]))
        }
    }

    @Test func withoutEmulatorModeNoneOfItIsAvailable() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            #expect(
                try await c.send("/emulator/v1/projects/\(h.projectID)/accounts", method: .delete, key: nil).status
                    == 404)
            let custom = JWS.unsigned(payload: ["aud": .string(CustomClaims.customTokenAudience), "uid": "c1"])
            #expect(
                try await c.post("/v1/accounts:signInWithCustomToken", ["token": .string(custom)]).errorCode
                    == "INVALID_CUSTOM_TOKEN")
            #expect(
                try await c.post("/v1/projects/any-project/accounts:signUp", [:], key: "k").errorCode
                    == "INVALID_PROJECT_ID")
        }
    }
}

@Suite("Project config API")
struct ProjectConfigAPITests {
    @Test func testPhoneNumbersSetThroughTheAPIWorkAtOnceAndSurviveARestart() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let path = "/v2/projects/\(h.projectID)/config?updateMask=signIn.phoneNumber.testPhoneNumbers"
            let body: JSONValue = ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+16505553434": "654321"]]]]
            let reply = try await c.admin(path, body, token: token, method: .patch)
            #expect(reply.status == 200)
            #expect(reply["signIn"]?["phoneNumber"]?["testPhoneNumbers"]?["+16505553434"]?.stringValue == "654321")

            let sent = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+16505553434"])
            let verified = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                ["sessionInfo": .string(sent.string("sessionInfo") ?? ""), "code": "654321"])
            #expect(verified.status == 200)
            #expect(try await h.store.outbox(projectID: h.projectID).isEmpty, "no SMS for a test number")

            let bad: JSONValue = ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+16505553434": "12"]]]]
            #expect(
                try await c.admin(path, bad, token: token, method: .patch).errorCode == "INVALID_TESTING_PHONE_NUMBER")
            let unsupported = try await c.admin(
                "/v2/projects/\(h.projectID)/config?updateMask=multiTenant", ["multiTenant": [:]], token: token,
                method: .patch)
            #expect(unsupported.errorCode == "INVALID_CONFIG")

            // Another server process on the same store picks the settings up.
            let registry = ProjectRegistry(
                defaultProjectID: h.projectID, projects: [ProjectConfig(projectID: h.projectID)])
            #expect(try await registry.load(from: h.store).isEmpty)
            #expect(registry.config(h.projectID)?.phone.testPhoneNumbers == ["+16505553434": "654321"])
            let fetched = try await c.admin("/v2/projects/\(h.projectID)/config", token: token, method: .get)
            #expect(fetched["signIn"]?["phoneNumber"]?["testPhoneNumbers"]?["+16505553434"]?.stringValue == "654321")
        }
    }

    @Test func authorizedDomainsAreHostNamesAndABadOneStoresNothing() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let path = "/v2/projects/\(h.projectID)/config?updateMask=authorizedDomains"
            let good = try await c.admin(
                path, ["authorizedDomains": ["app.example.com", "localhost", "127.0.0.1"]], token: token, method: .patch)
            #expect(good.status == 200, "\(good.json)")
            for bad in ["https://app.example.com", "app.example.com/path", "app.example.com:8443", "two words.example", "%61.example", ""] {
                let refused = try await c.admin(
                    path, ["authorizedDomains": ["ok.example", .string(bad)]], token: token, method: .patch)
                #expect(refused.status == 400 && refused.errorCode == "INVALID_CONFIG", "\(bad): \(refused.json)")
            }
            #expect(h.engine.projects.config(h.projectID)?.authorizedDomains == ["app.example.com", "localhost", "127.0.0.1"])
            // The rule is for updates: a document stored before it still loads, whole.
            try await h.store.saveProjectSettings(
                projectID: h.projectID, settings: #"{"authorizedDomains":["https://old.example"]}"#, at: Date())
            let registry = ProjectRegistry(defaultProjectID: h.projectID, projects: [ProjectConfig(projectID: h.projectID)])
            #expect(try await registry.load(from: h.store).isEmpty)
            #expect(registry.config(h.projectID)?.authorizedDomains == ["https://old.example"])
        }
    }

    @Test func theSMSOutboxIsReadableByAdminsOnly() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            _ = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+16505550123"])
            let outbox = try await c.admin("/hearth/v1/projects/\(h.projectID)/smsOutbox", token: token, method: .get)
            #expect(outbox["verificationCodes"]?[0]?["phoneNumber"]?.stringValue == "+16505550123")
            #expect(outbox["verificationCodes"]?[0]?["code"]?.stringValue?.count == 6)
            #expect(try await c.send("/hearth/v1/projects/\(h.projectID)/smsOutbox", method: .get).status == 401)
        }
    }
}
