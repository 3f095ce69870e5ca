import Foundation
import HTTPTypes
import HearthCore
import HearthStore
import Testing

@Suite("Phone sign-in")
struct PhoneSignInTests {
    static let testNumber = "+16505553434"

    func harness(emulator: Bool = false, _ configure: @escaping (inout ProjectConfig) -> Void = { _ in }) async throws
        -> Harness
    {
        try await Harness(emulator: emulator) {
            $0.phone.testPhoneNumbers = [Self.testNumber: "123456"]
            configure(&$0)
        }
    }

    func send(_ c: Client, _ phone: String) async throws -> Client.Reply {
        try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(phone)])
    }

    func verify(_ c: Client, _ session: String?, _ code: String, idToken: String? = nil) async throws -> Client.Reply {
        var body: [String: JSONValue] = ["code": .string(code)]
        if let session { body["sessionInfo"] = .string(session) }
        if let idToken { body["idToken"] = .string(idToken) }
        return try await c.post("/v1/accounts:signInWithPhoneNumber", .object(body))
    }

    /// The code the development outbox recorded for the last SMS to `phone`.
    func lastCode(_ h: Harness, _ phone: String) async throws -> String {
        try #require(try await h.store.outbox(projectID: h.projectID).last { $0.phoneNumber == phone }?.code)
    }

    @Test func smsCodeSignsUpThenSignsIn() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let phone = "+821012345678"
            let sent = try await send(c, "+82 10-1234-5678")
            #expect(sent.status == 200)
            let session = try #require(sent.string("sessionInfo"))
            let code = try await lastCode(h, phone)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))

            let first = try await verify(c, session, code)
            #expect(first.status == 200)
            #expect(first["isNewUser"] == .bool(true))
            #expect(first.string("phoneNumber") == phone)
            let claims = try claims(of: first.string("idToken"))
            #expect(claims["phone_number"]?.stringValue == phone)
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "phone")
            #expect(claims["firebase"]?["identities"]?["phone"] == [.string(phone)])
            // Single use.
            #expect(try await verify(c, session, code).errorCode == "INVALID_SESSION_INFO")

            h.clock.advance(31)
            let again = try await send(c, phone)
            let second = try await verify(c, again.string("sessionInfo"), try await lastCode(h, phone))
            #expect(second["isNewUser"] == .bool(false))
            #expect(second.string("localId") == first.string("localId"))
        }
    }

    @Test func sessionsAreStoredOnlyAsHashes() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            // A test number sends no SMS, so nothing but the verification row can hold the session.
            let session = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            let file = h.directory.appendingPathComponent("hearth.sqlite")
            var bytes = try Data(contentsOf: file)
            if let wal = try? Data(contentsOf: URL(fileURLWithPath: file.path + "-wal")) { bytes.append(wal) }
            #expect(bytes.range(of: Data(session.utf8)) == nil)
            #expect(try await verify(c, session, "123456").status == 200)
        }
    }

    @Test func testNumbersUseTheirFixedCodeAndSendNothing() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            for _ in 0..<3 {  // no cooldown for test numbers
                let session = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
                #expect(try await verify(c, session, "123456").status == 200)
            }
            #expect(try await h.store.outbox(projectID: h.projectID).isEmpty)
        }
    }

    @Test(arguments: [
        (#"{}"#, "INVALID_PHONE_NUMBER"), (#"{"phoneNumber":"12345"}"#, "INVALID_PHONE_NUMBER"),
        (#"{"phoneNumber":"+999123456"}"#, "INVALID_PHONE_NUMBER"),
        (#"{"phoneNumber":"+8210"}"#, "INVALID_PHONE_NUMBER"),
    ])
    func invalidNumbersAreRefused(body: String, code: String) async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v1/accounts:sendVerificationCode", method: .post, body: .init(string: body))
            #expect(r.status == 400)
            #expect(r.errorCode == code)
        }
    }

    @Test func verificationErrors() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let session = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            #expect(try await verify(c, nil, "123456").errorCode == "MISSING_SESSION_INFO")
            #expect(
                try await c.post("/v1/accounts:signInWithPhoneNumber", ["sessionInfo": .string(session)]).errorCode
                    == "MISSING_CODE")
            #expect(try await verify(c, "hps1_nonsense", "123456").errorCode == "INVALID_SESSION_INFO")
            #expect(try await verify(c, session, "000000").errorCode == "INVALID_CODE")
            h.clock.advance(301)
            #expect(try await verify(c, session, "123456").errorCode == "SESSION_EXPIRED")
        }
    }

    @Test func fiveWrongCodesKillTheSession() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let session = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            for _ in 0..<5 { #expect(try await verify(c, session, "999999").errorCode == "INVALID_CODE") }
            #expect(try await verify(c, session, "123456").errorCode == "INVALID_SESSION_INFO")
        }
    }

    @Test func concurrentAttemptsOnOneSessionHaveExactlyOneWinner() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let session = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await verify(c, session, "123456").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func resendCooldownAndDailyQuota() async throws {
        let h = try await harness { $0.phone.codesPerNumberPerDay = 2 }
        try await h.run { (c: Client) async throws in
            let phone = "+447400123456"
            #expect(try await send(c, phone).status == 200)
            #expect(try await send(c, phone).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            h.clock.advance(29)  // the cooldown slides: 29 s after the last code is still too soon
            #expect(try await send(c, phone).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            h.clock.advance(2)
            #expect(try await send(c, phone).status == 200)
            h.clock.advance(31)
            #expect(try await send(c, phone).errorCode == "QUOTA_EXCEEDED")
        }
    }

    @Test func perIPLimitApplies() async throws {
        let h = try await harness { $0.phone.codesPerIPPerMinute = 2 }
        try await h.run { (c: Client) async throws in
            #expect(try await send(c, "+447400123456").status == 200)
            #expect(try await send(c, "+447400123457").status == 200)
            #expect(try await send(c, "+447400123458").errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test func linkingANumberAndTheTemporaryProofPath() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            // Owner of the test number.
            let ownerSession = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            let owner = try await verify(c, ownerSession, "123456")
            let ownerID = try #require(owner.string("localId"))

            // A different, anonymous user tries to link the same number.
            let anon = try await c.signUp()
            let linkSession = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            let conflict = try await verify(c, linkSession, "123456", idToken: anon.string("idToken"))
            #expect(conflict.status == 200)
            #expect(conflict["idToken"] == nil)
            let proof = try #require(conflict.string("temporaryProof"))
            #expect(conflict.string("phoneNumber") == Self.testNumber)

            // Using the proof to link again is refused; signing in with it reaches the owner, once.
            let relink = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                [
                    "temporaryProof": .string(proof), "phoneNumber": .string(Self.testNumber),
                    "idToken": .string(anon.string("idToken")!),
                ])
            #expect(relink.errorCode == "PHONE_NUMBER_EXISTS")
            let proof2 = try #require(
                try await verify(
                    c, try await send(c, Self.testNumber).string("sessionInfo"), "123456",
                    idToken: anon.string("idToken")
                )
                .string("temporaryProof"))
            let signIn = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                ["temporaryProof": .string(proof2), "phoneNumber": .string(Self.testNumber)])
            #expect(signIn.string("localId") == ownerID)
            let reuse = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                ["temporaryProof": .string(proof2), "phoneNumber": .string(Self.testNumber)])
            #expect(reuse.errorCode == "INVALID_TEMPORARY_PROOF")

            // A free number links to the signed-in account and keeps its uid.
            let free = try #require(try await send(c, "+821012345678").string("sessionInfo"))
            let linked = try await verify(
                c, free, try await lastCode(h, "+821012345678"), idToken: anon.string("idToken"))
            #expect(linked.string("localId") == anon.string("localId"))
            #expect(try claims(of: linked.string("idToken"))["phone_number"]?.stringValue == "+821012345678")
        }
    }

    @Test func reauthenticationNeedsAnExistingAccount() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let session = try #require(try await send(c, Self.testNumber).string("sessionInfo"))
            let r = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                ["sessionInfo": .string(session), "code": "123456", "operation": "REAUTH"])
            #expect(r.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }

    @Test func smsTextFollowsTheClientsLanguage() async throws {
        let h = try await harness { $0.phone.appName = "Demo" }
        try await h.run { (c: Client) async throws in
            let locale = HTTPField.Name("X-Firebase-Locale")!
            _ = try await c.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": "+821012345678"], headers: [locale: "ko-KR"])
            _ = try await c.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": "+819012345678"], headers: [locale: "ja"])
            _ = try await c.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": "+447400123456"], headers: [locale: "xx"])
            let texts = try await h.store.outbox(projectID: h.projectID).map(\.text)
            let codes = try await h.store.outbox(projectID: h.projectID).map(\.code)
            #expect(texts[0] == "[Demo] 인증 코드: \(codes[0])")
            #expect(texts[1] == "Demo の確認コード: \(codes[1])")
            #expect(texts[2] == "\(codes[2]) is your verification code for Demo.")
        }
        let custom = try await harness { $0.phone.smsTemplate = "Code %LOGIN_CODE% (%APP_NAME%)" }
        try await custom.run { (c: Client) async throws in
            _ = try await send(c, "+821012345678")
            let message = try #require(try await custom.store.outbox(projectID: custom.projectID).first)
            #expect(message.text == "Code \(message.code) (Hearth)")
        }
    }

    @Test func regionPolicyRefusesSMSButNotTestNumbers() async throws {
        let h = try await harness { $0.phone.deniedRegions = ["KR"] }
        try await h.run { (c: Client) async throws in
            let r = try await send(c, "+821012345678")
            #expect(r.errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await send(c, "+447400123456").status == 200)
            #expect(try await send(c, Self.testNumber).status == 200)
        }
        let allowList = try await harness { $0.phone.allowedRegions = ["US"] }
        try await allowList.run { (c: Client) async throws in
            #expect(try await send(c, "+447400123456").errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await send(c, "+12015550123").status == 200)
        }
    }

    @Test func emulatorModeListsVerificationCodes() async throws {
        let h = try await harness(emulator: true)
        try await h.run { (c: Client) async throws in
            let sent = try await send(c, "+821012345678")
            let r = try await c.send("/emulator/v1/projects/\(h.projectID)/verificationCodes", method: .get, key: nil)
            #expect(r.status == 200)
            guard case .array(let codes)? = r["verificationCodes"] else { Issue.record("no codes"); return }
            #expect(codes.count == 1)
            #expect(codes[0]["phoneNumber"]?.stringValue == "+821012345678")
            #expect(codes[0]["sessionInfo"]?.stringValue == sent.string("sessionInfo"))
            #expect(codes[0]["code"]?.stringValue == (try await lastCode(h, "+821012345678")))
            // A used code leaves the listing, as in the emulator.
            let used = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                [
                    "sessionInfo": .string(try #require(sent.string("sessionInfo"))),
                    "code": .string(try await lastCode(h, "+821012345678")),
                ])
            #expect(used.status == 200)
            let after = try await c.send("/emulator/v1/projects/\(h.projectID)/verificationCodes", method: .get, key: nil)
            #expect(after["verificationCodes"] == [])
        }
        // Outside emulator mode the route does not exist.
        let production = try await harness()
        try await production.run { (c: Client) async throws in
            let r = try await c.send(
                "/emulator/v1/projects/\(production.projectID)/verificationCodes", method: .get, key: nil)
            #expect(r.status == 404)
        }
    }

    @Test func legacyPathsWork() async throws {
        let h = try await harness()
        try await h.run { (c: Client) async throws in
            let sent = try await c.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode",
                ["phoneNumber": .string(Self.testNumber)])
            let r = try await c.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber",
                ["sessionInfo": .string(sent.string("sessionInfo")!), "code": "123456"])
            #expect(r.status == 200)
        }
    }
}
