import Foundation
import HTTPTypes
import HearthCore
import HearthMessaging
import HearthStore
import Synchronization
import Testing

/// The e-mails that tell an account's owner about a security change, and the links in them.
@Suite("Security notices: second factor added, password changed, passkey added or removed")
struct SecurityNoticeTests {
    /// Keeps every message handed to it; fails when told to.
    final class Mailbox: EmailSender, Sendable {
        let messages = Mutex<[EmailMessage]>([])
        let failing = Mutex(false)

        func send(_ message: EmailMessage) async throws {
            if failing.withLock({ $0 }) {
                throw EmailDeliveryError(provider: "test", detail: "relay down")
            }
            messages.withLock { $0.append(message) }
        }

        var last: EmailMessage? { messages.withLock { $0.last } }
        var count: Int { messages.withLock { $0.count } }
    }

    static func mfaHarness(_ mailbox: Mailbox) async throws -> Harness {
        try await Harness(emailSender: mailbox) {
            $0.mfa = MFASettings(state: .enabled, phoneEnabled: true)
            $0.phone.resendCooldownSeconds = 0
        }
    }

    @Test func addingASecondFactorSendsALinkThatRemovesItAndEndsEverySession() async throws {
        let mailbox = Mailbox()
        let h = try await Self.mfaHarness(mailbox)
        try await h.run { c in
            let (uid, idToken) = try await MultiFactorTests.verifiedUser(c, h)
            let before = mailbox.count
            let enrolled = try await MultiFactorTests.enrollPhone(c, h, idToken: idToken)
            #expect(enrolled.status == 200)
            let enrolledToken = try #require(enrolled.string("idToken"))

            #expect(mailbox.count == before + 1)
            let notice = try #require(mailbox.last)
            #expect(notice.kind == .revertSecondFactorAddition && notice.to == "mfa@example.com")
            #expect(notice.link.contains("mode=revertSecondFactorAddition"))
            #expect(notice.text.contains("work phone"), "the notice names the factor")
            #expect(!notice.text.contains(MultiFactorTests.number), "and never the full number")

            let checked = try await c.post("/v1/accounts:resetPassword", ["oobCode": .string(notice.oobCode)])
            #expect(checked.string("requestType") == "REVERT_SECOND_FACTOR_ADDITION")
            #expect(checked.string("email") == "mfa@example.com")
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.mfaEnrollments.count == 1, "a check uses nothing")

            h.clock.advance(2)
            let reverted = try await c.post("/v1/accounts:update", ["oobCode": .string(notice.oobCode)])
            #expect(reverted.status == 200)
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.mfaEnrollments.isEmpty == true)
            #expect(try await c.lookup(enrolledToken).errorCode == "TOKEN_EXPIRED", "the adder's session ended")
            #expect(try await c.refresh(try #require(enrolled.string("refreshToken"))).errorCode == "TOKEN_EXPIRED")
            let again = try await c.post("/v1/accounts:update", ["oobCode": .string(notice.oobCode)])
            #expect(again.errorCode == "INVALID_OOB_CODE")

            // One factor again: the password alone signs in.
            let signedIn = try await c.signIn("mfa@example.com", "correct horse")
            #expect(signedIn.string("idToken") != nil && signedIn["mfaPendingCredential"] == nil)
        }
    }

    @Test func theRemovalLinkWorksFromTheActionPageAndCannotBeRequested() async throws {
        let mailbox = Mailbox()
        let h = try await Self.mfaHarness(mailbox)
        try await h.run { c in
            let (uid, idToken) = try await MultiFactorTests.verifiedUser(c, h)
            #expect(try await MultiFactorTests.enrollPhone(c, h, idToken: idToken).status == 200)
            let notice = try #require(mailbox.last)
            let pages = ActionPageTests()
            let (page, form) = try await pages.open(c, notice.link)
            #expect(page.status == 200)
            #expect(pages.html(page).contains("Remove 2-step verification"))
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.mfaEnrollments.count == 1, "GET spends nothing")
            let submitted = try await pages.post(c, try #require(form).fields, cookie: form?.cookie)
            #expect(submitted.status == 200)
            #expect(pages.html(submitted).contains("The second factor has been removed."))
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.mfaEnrollments.isEmpty == true)

            let requested = try await c.post(
                "/v1/accounts:sendOobCode",
                ["requestType": "REVERT_SECOND_FACTOR_ADDITION", "idToken": .string(idToken)])
            #expect(requested.errorCode == "INVALID_REQ_TYPE")
        }
    }

    /// A real SMTP relay (the sink, STARTTLS with AUTH) for the passkey notices.
    static func relay(_ sink: SMTPSink) throws -> SMTPEmailSender {
        try SMTPEmailSender(
            configuration: .init(
                host: "localhost", port: sink.port, security: .starttls, username: "relay", password: "relay-secret-1",
                from: "noreply@hearth.test", caFile: sink.caFile, timeoutSeconds: 60))
    }

    static func verify(_ h: Harness, _ uid: String, passkeys: [PasskeyCredential] = []) async throws {
        var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
        user.emailVerified = true
        user.passkeys += passkeys
        try await h.store.updateUser(user)
    }

    @Test func anAddedAndARemovedPasskeyAreReportedInTheClientsLanguageAndAFailedDeliveryFailsNothing() async throws {
        let sink = try await SMTPSink(.starttls, user: "relay", password: "relay-secret-1")
        defer { sink.stop() }
        // The emulator's passkey mock enrols without an authenticator; the notices are the same as production's.
        let h = try await Harness(emailSender: try Self.relay(sink), emulator: true)
        try await h.run { c in
            let signedUp = try await c.signUp(email: "ada@example.com", password: "correct horse")
            let uid = try #require(signedUp.string("localId"))
            let idToken = try #require(signedUp.string("idToken"))
            try await Self.verify(h, uid)
            let enrolled = try await c.post(
                "/v2/accounts/passkeyEnrollment:finalize",
                ["idToken": .string(idToken), "name": "Ada's phone", "authenticatorRegistrationResponse": ["id": "cred-1"]])
            #expect(enrolled.status == 200, "\(enrolled.json)")
            let added = try #require(try sink.received().last)
            #expect(added.recipients == ["ada@example.com"])
            #expect(added.header["Subject"] == "A passkey was added to your Hearth account")
            #expect(added.text.contains("(Ada's phone)"), "the notice names the passkey")
            #expect(added.link?.contains("mode=resetPassword") == true, "its link resets the password")

            var korean = HTTPFields()
            korean[HTTPField.Name("X-Firebase-Locale")!] = "ko-KR"
            let removed = try await c.post(
                "/v1/accounts:update", ["idToken": .string(idToken), "deletePasskey": ["cred-1"]], headers: korean)
            #expect(removed.status == 200, "\(removed.json)")
            #expect(try sink.received().count == 2)
            let notice = try #require(try sink.received().last)
            #expect(notice.header["Subject"] == "Hearth 계정에서 패스키가 삭제되었습니다")
            #expect(notice.text.contains("Ada's phone"))

            // The relay is gone: the enrolment still succeeds and is stored; the failure is only logged.
            sink.stop()
            let again = try await c.post(
                "/v2/accounts/passkeyEnrollment:finalize",
                ["idToken": .string(idToken), "name": "Laptop", "authenticatorRegistrationResponse": ["id": "cred-2"]])
            #expect(again.status == 200, "\(again.json)")
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.passkeys.map(\.name) == ["Laptop"])
        }
    }

    @Test func anAdminsRemovalIsReportedAndAnUnverifiedAddressHearsNothing() async throws {
        let sink = try await SMTPSink(.starttls, user: "relay", password: "relay-secret-1")
        defer { sink.stop() }
        let h = try await Harness(emailSender: try Self.relay(sink))
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { c in
            let token = try await account.accessToken(c, now: h.clock.authClock.now())
            func passkey(_ id: UInt8, _ name: String) -> PasskeyCredential {
                PasskeyCredential(
                    credentialID: [id], userHandle: Array(repeating: 1, count: 32), publicKey: [0xA5], algorithm: -7,
                    name: name, createdAt: h.clock.authClock.now())
            }
            let ada = try #require(try await c.signUp(email: "ada@example.com", password: "correct horse").string("localId"))
            try await Self.verify(h, ada, passkeys: [passkey(1, "Phone"), passkey(2, "Key")])
            let bob = try #require(try await c.signUp(email: "bob@example.com", password: "battery staple").string("localId"))
            var unverified = try #require(try await h.store.user(projectID: h.projectID, uid: bob))
            unverified.passkeys = [passkey(3, "Bob's key")]
            try await h.store.updateUser(unverified)
            let before = try sink.received().count

            let removed = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(ada), "deletePasskey": ["AQ==", "Ag=="]],
                token: token)
            #expect(removed.status == 200, "\(removed.json)")
            let notice = try #require(try sink.received().last)
            #expect(try sink.received().count == before + 1, "one notice for both")
            #expect(notice.recipients == ["ada@example.com"])
            #expect(notice.header["Subject"] == "A passkey was removed from your Hearth account")
            #expect(notice.text.contains("(Phone, Key)"))

            let bobs = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(bob), "deletePasskey": ["Aw=="]],
                token: token)
            #expect(bobs.status == 200, "\(bobs.json)")
            #expect(try sink.received().count == before + 1, "an unverified address may not be the owner's")
        }
    }

    @Test func aChangedPasswordIsReportedOnlyWhenTheProjectAsks() async throws {
        for notify in [false, true] {
            let mailbox = Mailbox()
            let h = try await Harness(emailSender: mailbox) { $0.email.notifyPasswordChange = notify }
            try await h.run { c in
                let (_, idToken) = try await MultiFactorTests.verifiedUser(c, h, email: "ada@example.com")
                let changed = try await c.post(
                    "/v1/accounts:update", ["idToken": .string(idToken), "password": "new horse battery"])
                #expect(changed.status == 200)
                guard notify else {
                    #expect(mailbox.count == 0)
                    return
                }
                let notice = try #require(mailbox.last)
                #expect(notice.to == "ada@example.com" && notice.kind == .passwordReset)
                #expect(notice.subject == "Your Hearth password was changed")
                // The link resets the password for an owner who did not change it.
                let reset = try await c.post(
                    "/v1/accounts:resetPassword",
                    ["oobCode": .string(notice.oobCode), "newPassword": "owner's own again"])
                #expect(reset.status == 200)
                #expect(try await c.signIn("ada@example.com", "owner's own again").status == 200)
                #expect(mailbox.count == 2, "the reset is reported too")
            }
        }
    }

    @Test func aFailedDeliveryIsNotAnEnumerationOracle() async throws {
        for protected in [false, true] {
            let mailbox = Mailbox()
            let h = try await Harness(emailSender: mailbox) { $0.emailEnumerationProtection = protected }
            try await h.run { c in
                _ = try await c.signUp(email: "ada@example.com", password: "secret1")
                mailbox.failing.withLock { $0 = true }
                let known = try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
                let unknown = try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "bob@example.com"])
                if protected {
                    #expect(known.status == 200 && unknown.status == 200, "known and unknown look alike")
                    #expect(known.json == unknown.json.replacing(email: "ada@example.com"))
                } else {
                    #expect(known.status == 503 && known.errorCode == "UNAVAILABLE")
                    #expect(unknown.errorCode == "EMAIL_NOT_FOUND")
                }
            }
        }
    }
}

extension JSONValue {
    /// The reply with its `email` swapped, to compare two replies that differ only in the address asked about.
    fileprivate func replacing(email: String) -> JSONValue {
        guard case .object(var o) = self else { return self }
        if o["email"] != nil { o["email"] = .string(email) }
        return .object(o)
    }
}
