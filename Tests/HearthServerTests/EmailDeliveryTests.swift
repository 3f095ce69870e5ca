import Foundation
import GRDB
import HTTPTypes
import HearthCore
import HearthMessaging
import HearthStore
import Hummingbird
import Synchronization
import Testing

@testable import HearthSQLite

/// Action links delivered through a real SMTP server (aiosmtpd on 127.0.0.1, STARTTLS or implicit TLS, AUTH)
/// and a signed webhook; what happens when delivery fails or no sender is configured.
@Suite("E-mail delivery", .serialized)
struct EmailDeliveryTests {
    static let user = "hearth-relay"
    static let password = "relay-secret-1"

    /// A generous deadline: past it, before the whole message is written, the sender deletes the message's code (no
    /// live link left behind), and under the whole suite's load a relay was once still handshaking at 10 s. The
    /// deadline itself is tested with a silent server and one that never confirms a message.
    func smtp(_ sink: SMTPSink, security: SMTPEmailSender.Security, caFile: String? = nil, password: String = password,
        timeout: Double = 60) throws -> SMTPEmailSender
    {
        try SMTPEmailSender(
            configuration: .init(
                host: "localhost", port: sink.port, security: security, username: Self.user, password: password,
                from: "noreply@hearth.test", fromName: "Hearth Tests", replyTo: "support@hearth.test",
                caFile: caFile ?? sink.caFile, timeoutSeconds: timeout))
    }

    func liveCodes(_ h: Harness) async throws -> Int {
        try await h.store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_action_codes") ?? 0 }
    }

    func code(in link: String?) throws -> String {
        let items = URLComponents(string: try #require(link))?.queryItems ?? []
        return try #require(items.first { $0.name == "oobCode" }?.value)
    }

    /// Signs ada up on a server whose mail goes through `sender` and asks for her reset link; `body` gets the harness,
    /// the client and the answer. Without enumeration protection, so a failed delivery says so (503); with it, see
    /// SecurityNoticeTests.
    func resetRequested(
        through sender: EmailSender, _ body: @escaping @Sendable (Harness, Client, Client.Reply) async throws -> Void
    ) async throws {
        let h = try await Harness(emailSender: sender) { $0.emailEnumerationProtection = false }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            let sent = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            try await body(h, c, sent)
        }
    }

    @Test func aResetLinkArrivesOverSTARTTLSWithAuthAsTextAndHTMLAndSetsTheNewPassword() async throws {
        let sink = try await SMTPSink(.starttls, user: Self.user, password: Self.password)
        defer { sink.stop() }
        let h = try await Harness(emailSender: try smtp(sink, security: .starttls)) {
            $0.emailActionURL = "https://auth.example.com/__/auth/action"
            $0.email.appName = "Lovelace & Co"
        }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            let sent = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            #expect(sent.status == 200 && sent.string("oobLink") == nil)
            let mail = try #require(try sink.received().first)
            #expect(mail.json["tls"] == .bool(true) && mail.json["authenticated"] == .bool(true))
            #expect(mail.json["mailFrom"]?.stringValue == "noreply@hearth.test")
            #expect(mail.recipients == ["ada@example.com"])
            #expect(mail.header["From"] == "Hearth Tests <noreply@hearth.test>")
            #expect(mail.header["To"] == "ada@example.com")
            #expect(mail.header["Reply-To"] == "support@hearth.test")
            #expect(mail.header["Subject"] == "Reset your password for Lovelace & Co")
            #expect(mail.json["contentType"]?.stringValue == "multipart/alternative")
            #expect(mail.json["parts"] == ["text/plain", "text/html"])
            let link = try #require(mail.link)
            #expect(link.hasPrefix("https://auth.example.com/__/auth/action?mode=resetPassword&oobCode="))
            #expect(mail.text.contains("reset your Lovelace & Co password for your ada@example.com account"))
            // The HTML part carries the same link, escaped as an attribute, and the app name escaped.
            #expect(mail.html.contains("<a href=\"\(link.replacingOccurrences(of: "&", with: "&amp;"))\">"))
            #expect(mail.html.contains("Lovelace &amp; Co"))
            #expect(try await h.store.emailOutbox(projectID: h.projectID).isEmpty, "nothing in the outbox")

            let reset = try await c.post(
                "/v1/accounts:resetPassword", ["oobCode": .string(try code(in: link)), "newPassword": "newpass1"])
            #expect(reset.status == 200, "\(reset.json)")
            #expect(try await c.signIn("ada@example.com", "newpass1").status == 200)
        }
    }

    @Test func implicitTLSWithAuthLoginDeliversAVerificationInTheClientsLanguage() async throws {
        let sink = try await SMTPSink(.tls, user: Self.user, password: Self.password, loginOnly: true)
        defer { sink.stop() }
        let h = try await Harness(emailSender: try smtp(sink, security: .tls))
        try await h.run { (c: Client) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let sent = try await c.post(
                "/v1/accounts:sendOobCode",
                ["requestType": "VERIFY_EMAIL", "idToken": .string(try #require(session.string("idToken")))],
                headers: [HTTPField.Name("X-Firebase-Locale")!: "ko-KR"])
            #expect(sent.status == 200)
            let mail = try #require(try sink.received().first)
            #expect(mail.json["tls"] == .bool(true) && mail.json["authenticated"] == .bool(true))
            #expect(mail.header["Subject"] == "Hearth 이메일 주소 인증")
            #expect(mail.text.contains("이메일 주소를 인증하세요"))
            let link = try #require(mail.link)
            #expect(link.contains("mode=verifyEmail") && link.contains("lang=ko-KR"))
            let confirmed = try await c.post("/v1/accounts:update", ["oobCode": .string(try code(in: link))])
            #expect(confirmed["emailVerified"] == .bool(true))
        }
    }

    @Test func anUntrustedCertificateIsRefusedAndLeavesNoLiveCode() async throws {
        let sink = try await SMTPSink(.starttls, user: Self.user, password: Self.password)
        defer { sink.stop() }
        // No caFile: the throwaway CA is not trusted, and Hearth never skips verification.
        let sender = try SMTPEmailSender(
            configuration: .init(
                host: "localhost", port: sink.port, security: .starttls, username: Self.user,
                password: Self.password, from: "noreply@hearth.test", timeoutSeconds: 60))
        try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
            #expect(sent.status == 503 && sent.errorCode == "UNAVAILABLE")
            #expect(try sink.received().isEmpty)
            #expect(try await liveCodes(h) == 0)
        }
    }

    @Test func aServerWithoutSTARTTLSGetsNothingInPlaintext() async throws {
        let sink = try await SMTPSink(.plain)
        defer { sink.stop() }
        let sender = try SMTPEmailSender(
            configuration: .init(
                host: "127.0.0.1", port: sink.port, security: .starttls, from: "noreply@hearth.test",
                timeoutSeconds: 60))
        try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
            #expect(sent.status == 503)
            #expect(try sink.received().isEmpty)
            #expect(try await liveCodes(h) == 0)
        }
        // The sender itself says why.
        await #expect(throws: EmailDeliveryError(provider: "smtp", detail: "the server does not offer STARTTLS; the message was not sent")) {
            try await sender.send(Self.message(to: "ada@example.com"))
        }
    }

    @Test func aWrongPasswordAndASilentServerAreClearErrors() async throws {
        let sink = try await SMTPSink(.starttls, user: Self.user, password: Self.password)
        defer { sink.stop() }
        do {
            try await smtp(sink, security: .starttls, password: "wrong").send(Self.message(to: "ada@example.com"))
            Issue.record("a wrong password was accepted")
        } catch let error as EmailDeliveryError {
            #expect(error.detail.hasPrefix("AUTH PLAIN answered 535"))
            #expect(!error.description.contains("wrong"), "the password never appears in an error")
        }
        #expect(try sink.received().isEmpty)

        let silent = try await SMTPSink(.silent)
        defer { silent.stop() }
        let started = ContinuousClock.now
        do {
            try await SMTPEmailSender(
                configuration: .init(
                    host: "127.0.0.1", port: silent.port, security: .none, from: "noreply@hearth.test",
                    timeoutSeconds: 1)
            ).send(Self.message(to: "ada@example.com"))
            Issue.record("a silent server did not time out")
        } catch let error as EmailDeliveryError {
            #expect(error.detail == "no answer within 1.0 s" && !error.mayHaveArrived)
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// A relay that stored the whole message but whose 250 never came: the deadline still fails the request, but
    /// the link in the mail that may have arrived works.
    @Test func anUnconfirmedMessageKeepsItsLinkLive() async throws {
        let sink = try await SMTPSink(.unconfirmed)
        defer { sink.stop() }
        let sender = try SMTPEmailSender(
            configuration: .init(
                host: "127.0.0.1", port: sink.port, security: .none, from: "noreply@hearth.test",
                timeoutSeconds: 5))
        try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
            #expect(sent.status == 503 && sent.errorCode == "UNAVAILABLE")
            let mail = try #require(try sink.received().first)
            let reset = try await c.post(
                "/v1/accounts:resetPassword", ["oobCode": .string(try code(in: mail.link)), "newPassword": "newpass1"])
            #expect(reset.status == 200, "\(reset.json)")
        }
        // The sender says the deadline passed after the message was written.
        do {
            try await sender.send(Self.message(to: "ada@example.com"))
            Issue.record("an unconfirmed message was taken as delivered")
        } catch let error as EmailDeliveryError {
            #expect(error.detail == "no answer within 5.0 s" && error.mayHaveArrived)
        }
    }

    /// A relay that answers the whole message with a refusal: it did not arrive, so its code is deleted.
    @Test func aRefusedMessageLeavesNoLiveCode() async throws {
        let sink = try await SMTPSink(.refusing)
        defer { sink.stop() }
        let sender = try SMTPEmailSender(
            configuration: .init(
                host: "127.0.0.1", port: sink.port, security: .none, from: "noreply@hearth.test",
                timeoutSeconds: 60))
        try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
            #expect(sent.status == 503 && sent.errorCode == "UNAVAILABLE")
            #expect(try await liveCodes(h) == 0)
        }
        do {
            try await sender.send(Self.message(to: "ada@example.com"))
            Issue.record("a refused message was taken as delivered")
        } catch let error as EmailDeliveryError {
            #expect(error.detail.hasPrefix("end of message answered 554") && !error.mayHaveArrived)
        }
    }

    @Test func withoutASenderAProductionServerRefusesAndStoresNothing() async throws {
        let h = try await Harness(emailSender: UnconfiguredEmailSender())
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            let sent = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            #expect(sent.status == 400 && sent.errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await liveCodes(h) == 0)
            #expect(try await h.store.emailOutbox(projectID: h.projectID).isEmpty)
            // An admin asking for the link itself needs no mail.
            let generated = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true], token: token)
            #expect(generated.string("oobLink") != nil)
        }
    }

    @Test func theWebhookReceivesASignedMessage() async throws {
        let sink = SMSSink()
        sink.reply.withLock { $0 = (.ok, "{}") }
        try await sink.serve { base in
            let sender = WebhookEmailSender(
                configuration: .init(url: base + "/mail", secret: "hook-secret", from: "noreply@hearth.test"))
            try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
                #expect(sent.status == 200)
                let request = try #require(sink.received.withLock { $0.first })
                let timestamp = try #require(request.headers[HTTPField.Name("X-Hearth-Timestamp")!])
                #expect(
                    request.headers[HTTPField.Name("X-Hearth-Signature")!]
                        == "sha256="
                        + WebhookSigner.signature(
                            secret: "hook-secret", timestamp: timestamp, body: Array(request.body.utf8)))
                let body = try JSONValue(parsing: request.body)
                #expect(body["to"]?.stringValue == "ada@example.com")
                #expect(body["kind"]?.stringValue == "PASSWORD_RESET")
                #expect(body["subject"]?.stringValue == "Reset your password for Hearth")
                #expect(body["html"]?.stringValue?.contains("<a href=") == true)
                #expect(body["text"]?.stringValue?.contains(body["link"]?.stringValue ?? "-") == true)

                sink.failWith.withLock { $0 = .badGateway }
                let failed = try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
                #expect(failed.status == 503 && failed.errorCode == "UNAVAILABLE")
                #expect(try await liveCodes(h) == 1, "only the delivered link's code is live")
            }
        }
    }

    /// A receiver that took the whole message but answered after the sender's deadline: the request fails, but the
    /// link in the message that may have arrived works, as for an SMTP relay that never confirmed.
    @Test func aWebhookThatAnswersTooLateKeepsItsLinkLive() async throws {
        let sink = SMSSink()
        sink.reply.withLock { $0 = (.ok, "{}") }
        sink.answerAfter.withLock { $0 = .seconds(3) }
        try await sink.serve { base in
            let sender = WebhookEmailSender(configuration: .init(url: base + "/mail"), timeout: .seconds(1))
            try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
                #expect(sent.status == 503 && sent.errorCode == "UNAVAILABLE")
                let request = try #require(sink.received.withLock { $0.first })
                let link = try JSONValue(parsing: request.body)["link"]?.stringValue
                let reset = try await c.post(
                    "/v1/accounts:resetPassword", ["oobCode": .string(try code(in: link)), "newPassword": "newpass1"])
                #expect(reset.status == 200, "\(reset.json)")
            }
            do {
                try await sender.send(Self.message(to: "ada@example.com"))
                Issue.record("an unanswered message was taken as delivered")
            } catch let error as EmailDeliveryError {
                #expect(error.mayHaveArrived, "\(error)")
            }
        }
    }

    /// No receiver at the URL: nothing was handed over, so the code is deleted and no live link is left; and the
    /// refused connection answers at once rather than after the call's deadline (a minute here) or the HTTP client's
    /// 10-s connect timeout, which retrying refused connections would wait for.
    @Test func aWebhookNobodyListensOnLeavesNoLiveCode() async throws {
        let sender = WebhookEmailSender(
            configuration: .init(url: "http://127.0.0.1:\(try closedPort())/mail"), timeout: .seconds(60))
        try await resetRequested(through: sender) { (h: Harness, c: Client, sent: Client.Reply) async throws in
            #expect(sent.status == 503 && sent.errorCode == "UNAVAILABLE")
            #expect(try await liveCodes(h) == 0)
        }
        let started = ContinuousClock.now
        do {
            try await sender.send(Self.message(to: "ada@example.com"))
            Issue.record("a message nobody received was taken as delivered")
        } catch let error as EmailDeliveryError {
            #expect(!error.mayHaveArrived, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func headersAreEncodedAndCannotBeInjected() async throws {
        let sink = try await SMTPSink(.starttls, user: Self.user, password: Self.password)
        defer { sink.stop() }
        var message = Self.message(to: "ada@example.com")
        message.senderName = "하스 \"Hearth\" 팀"
        message.subject = "Bonjour Adélaïde\r\nBcc: eve@evil.example"
        message.text = "line one\n.\n..two dots\n"
        try await smtp(sink, security: .starttls).send(message)
        let mail = try #require(try sink.received().first)
        #expect(mail.recipients == ["ada@example.com"], "no injected recipient")
        #expect(mail.header["Bcc"] == nil)
        #expect(mail.header["Subject"] == "Bonjour Adélaïde Bcc: eve@evil.example", "the line break became a space")
        let from = try #require(mail.header["From"])
        #expect(from.contains("하스") && from.contains("Hearth") && from.hasSuffix("<noreply@hearth.test>"))
        #expect(mail.text == "line one\n.\n..two dots\n")
    }

    static func message(to: String) -> EmailMessage {
        EmailMessage(
            projectID: "p", to: to, subject: "s", text: "t", html: "<p>t</p>", kind: .passwordReset, oobCode: "c",
            link: "https://example.com/x", sentAt: Date())
    }
}
