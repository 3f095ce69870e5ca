import Crypto
import Foundation
import GRDB
import HTTPTypes
import HearthCore
import HearthMessaging
import Hummingbird
import Synchronization
import Testing

@testable import HearthSQLite

/// A real HTTP server on 127.0.0.1 shaped like Twilio's Messages API (and a webhook receiver),
/// recording what it was sent.
final class SMSSink: Sendable {
    struct Received: Sendable {
        let path: String
        let headers: HTTPFields
        let body: String
    }

    let received = Mutex<[Received]>([])
    let failWith = Mutex<HTTPResponse.Status?>(nil)
    /// What a successful request is answered with (Twilio's shape by default).
    let reply = Mutex<(HTTPResponse.Status, String)>((.created, #"{"sid":"SM123","status":"queued"}"#))
    /// How long each request waits, once recorded, for its answer (a receiver that took the message but is slow).
    let answerAfter = Mutex<Duration>(.zero)

    /// Runs the sink for the duration of `body`, passing its base URL.
    func serve(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("**") { request, context -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            self.received.withLock { $0.append(Received(path: request.uri.path, headers: request.headers, body: text)) }
            try await Task.sleep(for: self.answerAfter.withLock { $0 })
            if let status = self.failWith.withLock({ $0 }) {
                return Response(
                    status: status, body: .init(byteBuffer: ByteBuffer(string: #"{"code":21211,"message":"nope"}"#)))
            }
            let (status, answer) = self.reply.withLock { $0 }
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        try await serveOnLoopback(router, body)
    }
}

@Suite("SMS providers")
struct SMSProviderTests {
    @Test func twilioReceivesTheCodeWithBasicAuth() async throws {
        let sink = SMSSink()
        try await sink.serve { base in
            let twilio = TwilioSMSSender(
                configuration: .init(
                    accountSID: "AC123", authToken: "secret-token", from: "+15005550006", baseURL: base))
            let h = try await Harness(smsSender: twilio)
            try await h.run { (c: Client) async throws in
                let sent = try await c.post(
                    "/v1/accounts:sendVerificationCode", ["phoneNumber": "+821012345678"],
                    headers: [HTTPField.Name("X-Firebase-Locale")!: "en"])
                #expect(sent.status == 200)
                let request = try #require(sink.received.withLock { $0.first })
                #expect(request.path == "/2010-04-01/Accounts/AC123/Messages.json")
                #expect(
                    request.headers[.authorization] == "Basic " + Data("AC123:secret-token".utf8).base64EncodedString())
                let form = Dictionary(
                    uniqueKeysWithValues: request.body.split(separator: "&").map {
                        let kv = $0.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding! }
                        return (kv[0], kv[1])
                    })
                #expect(form["To"] == "+821012345678")
                #expect(form["From"] == "+15005550006")
                let code = try #require(form["Body"]?.prefix(6))
                #expect(form["Body"] == "\(code) is your verification code for Hearth.")
                // The code the provider delivered signs the user in.
                let signIn = try await c.post(
                    "/v1/accounts:signInWithPhoneNumber",
                    ["sessionInfo": .string(sent.string("sessionInfo")!), "code": .string(String(code))])
                #expect(signIn.status == 200)
                #expect(try await h.store.outbox(projectID: h.projectID).isEmpty)
            }
        }
    }

    @Test func failedDeliveryIsAClearErrorAndLeavesNoSession() async throws {
        let sink = SMSSink()
        sink.failWith.withLock { $0 = .badRequest }
        try await sink.serve { base in
            let twilio = TwilioSMSSender(
                configuration: .init(accountSID: "AC1", authToken: "t", from: "+15005550006", baseURL: base))
            let h = try await Harness(smsSender: twilio)
            try await h.run { (c: Client) async throws in
                let r = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+821012345678"])
                #expect(r.status == 503)
                #expect(r.errorCode == "UNAVAILABLE")
                #expect(sink.received.withLock { $0.count } == 1)
                // No session survives the failure: the one created for it was deleted again.
                #expect(try await h.store.pendingPhoneVerifications() == 0)
            }
        }
    }

    @Test func webhookRequestsAreSigned() async throws {
        let sink = SMSSink()
        try await sink.serve { base in
            let webhook = WebhookSMSSender(configuration: .init(url: base + "/sms", secret: "shh"))
            let h = try await Harness(smsSender: webhook)
            try await h.run { (c: Client) async throws in
                #expect(
                    try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+447400123456"]).status
                        == 200)
                let request = try #require(sink.received.withLock { $0.first })
                let timestamp = try #require(request.headers[HTTPField.Name("X-Hearth-Timestamp")!])
                let expected = WebhookSigner.signature(
                    secret: "shh", timestamp: timestamp, body: Array(request.body.utf8))
                #expect(request.headers[HTTPField.Name("X-Hearth-Signature")!] == "sha256=" + expected)
                let json = try JSONValue(parsing: request.body)
                #expect(json["phoneNumber"]?.stringValue == "+447400123456")
                #expect(json["code"]?.stringValue?.count == 6)
            }
        }
    }

    /// The webhooks' signature against a value computed elsewhere (Python's hmac), so that the signer is not only
    /// checked against itself.
    @Test func webhookSignatureIsHMACSHA256OfTimestampDotBody() {
        #expect(
            WebhookSigner.signature(secret: "shh", timestamp: "1700000000", body: Array(#"{"a":1}"#.utf8))
                == "be310eac0f84daf469d630347a950258de768b365563ab68f29f2f783473d547")
    }

    @Test func recaptchaModeAsksForAValidToken() async throws {
        let siteverify = SMSSink()
        try await siteverify.serve { base in
            let verifier = RecaptchaVerifier(
                configuration: .init(secret: "server-secret", siteverifyURL: base + "/siteverify"))
            let h = try await Harness(recaptcha: verifier) { $0.phone.appVerification = .recaptcha }
            try await h.run { (c: Client) async throws in
                let phone: JSONValue = "+447400123456"
                #expect(
                    try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": phone]).errorCode
                        == "MISSING_APP_CREDENTIAL")
                #expect(
                    try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": phone, "iosReceipt": "r"])
                        .errorCode
                        == "INVALID_APP_CREDENTIAL")
                siteverify.reply.withLock { $0 = (.ok, #"{"success":false,"error-codes":["invalid-input-response"]}"#) }
                let refused = try await c.post(
                    "/v1/accounts:sendVerificationCode", ["phoneNumber": phone, "recaptchaToken": "bad"])
                #expect(refused.errorCode == "INVALID_APP_CREDENTIAL")
                siteverify.reply.withLock { $0 = (.ok, #"{"success":true,"hostname":"localhost"}"#) }
                let accepted = try await c.post(
                    "/v1/accounts:sendVerificationCode", ["phoneNumber": phone, "recaptchaToken": "good"])
                #expect(accepted.status == 200)
                let check = try #require(siteverify.received.withLock { $0.last })
                #expect(check.body.contains("secret=server-secret") && check.body.contains("response=good"))
                #expect(try await h.store.outbox(projectID: h.projectID).count == 1)
            }
        }
    }

    @Test func configurationNamesWhatIsMissing() {
        #expect(SMSConfiguration(provider: .twilio).problem != nil)
        #expect(SMSConfiguration(provider: .twilio, twilio: .init(accountSID: "AC1", authToken: "t")).problem != nil)
        #expect(
            SMSConfiguration(provider: .twilio, twilio: .init(accountSID: "AC1", authToken: "t", from: "+1")).problem
                == nil)
        #expect(SMSConfiguration(provider: .webhook, webhook: .init(url: "https://x")).problem != nil)
        var env = SMSConfiguration(provider: .webhook, webhook: .init(url: "https://x"))
        env.applyEnvironment(["HEARTH_SMS_WEBHOOK_SECRET": "s"])
        #expect(env.problem == nil)
    }
}

extension SQLiteAuthStore {
    func pendingPhoneVerifications() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM phone_verifications") ?? 0 }
    }
}
