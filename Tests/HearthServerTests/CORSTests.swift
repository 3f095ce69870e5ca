import HTTPTypes
import HearthCore
import HearthMessaging
import HearthServer
import Hummingbird
import NIOCore
import Testing

/// A browser shows a cross-origin answer to the page only if it carries `Access-Control-Allow-Origin`; without it
/// the JS SDK sees a network failure instead of the error code. Every kind of answer must carry it.
@Suite("CORS on every answer")
struct CORSTests {
    static let origin = "https://app.example.com"
    static let fromApp: HTTPFields = [.origin: origin]

    static func expectReadable(_ r: Client.Reply, _ status: Int, _ what: String) {
        #expect(r.status == status, "\(what): \(r.json)")
        #expect(r.headers[.accessControlAllowOrigin] == origin, "\(what)")
        #expect(r.headers[.vary] == "Origin", "\(what)")
        if status >= 400 { #expect(r.json["error"]?["code"]?.doubleValue == Double(status), "\(what)") }
    }

    @Test func clientErrorsCarryTheOrigin() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "right-pass")
            let post = { (path: String, body: JSONValue) in try await c.post(path, body, headers: Self.fromApp) }
            let wrong = try await post(
                "/v1/accounts:signInWithPassword", ["email": "ada@example.com", "password": "wrong-pass"])
            Self.expectReadable(wrong, 400, "wrong password")
            #expect(wrong.errorCode == "INVALID_LOGIN_CREDENTIALS")
            let taken = try await post("/v1/accounts:signUp", ["email": "ada@example.com", "password": "other-pass"])
            Self.expectReadable(taken, 400, "e-mail in use")
            #expect(taken.errorCode == "EMAIL_EXISTS")
            let weak = try await post("/v1/accounts:signUp", ["email": "bob@example.com", "password": "123"])
            Self.expectReadable(weak, 400, "weak password")
            #expect(weak.errorCode == "WEAK_PASSWORD")
            let unknown = try await post("/v1/accounts:doesNotExist", [:])
            Self.expectReadable(unknown, 404, "unknown route")
            let malformed = try await c.send(
                "/v1/accounts:signUp", method: .post, body: ByteBuffer(string: "{\"email\":"), headers: Self.fromApp)
            Self.expectReadable(malformed, 400, "malformed JSON")
            let big = ByteBuffer(repeating: UInt8(ascii: " "), count: 17 * 1024 * 1024)
            let tooLarge = try await c.send("/v1/accounts:signUp", method: .post, body: big, headers: Self.fromApp)
            Self.expectReadable(tooLarge, 413, "payload too large")
            let noKey = try await c.post("/v1/accounts:signUp", [:], key: nil, headers: Self.fromApp)
            Self.expectReadable(noKey, 403, "no API key")
            let badAdmin = try await c.post(
                "/v1/projects/test-project/accounts:lookup", ["localId": ["x"]], key: nil,
                headers: [.origin: Self.origin, .authorization: "Bearer not-a-token"])
            Self.expectReadable(badAdmin, 401, "bad admin credential")
            let wrongMethod = try await c.send("/v1/accounts:signUp", method: .put, headers: Self.fromApp)
            Self.expectReadable(wrongMethod, 404, "a method the path does not take")
        }
    }

    @Test func serverErrorsCarryTheOrigin() async throws {
        // Nothing listens on the port: every delivery fails, and sendOobCode answers 503 UNAVAILABLE.
        let sender = try SMTPEmailSender(
            configuration: .init(
                host: "127.0.0.1", port: 9, security: .none, from: "noreply@hearth.test", timeoutSeconds: 5))
        let h = try await Harness(emailSender: sender) { $0.emailEnumerationProtection = false }
        struct Bug: Error {}
        try await h.run(routes: { $0.get("/cors-test/bug") { _, _ -> Response in throw Bug() } }) {
            (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "right-pass")
            let down = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"],
                headers: Self.fromApp)
            Self.expectReadable(down, 503, "mail server down")
            let bug = try await c.send("/cors-test/bug", method: .get, headers: Self.fromApp)
            Self.expectReadable(bug, 500, "a bug")
        }
    }

    @Test func withoutAnOriginNothingIsAdded() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.post("/v1/accounts:doesNotExist", [:])
            #expect(r.status == 404)
            #expect(r.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func pagesAreNeverReadableFromAnotherOrigin() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let page = try await c.send(
                "/__/auth/action?mode=resetPassword&oobCode=x&apiKey=\(Harness.apiKey)", method: .get, key: nil,
                headers: Self.fromApp)
            #expect(page.headers[.accessControlAllowOrigin] == nil)
            let preflight = try await c.send(
                "/__/auth/action", method: .options, key: nil,
                headers: [.origin: Self.origin, .accessControlRequestMethod: "POST"])
            #expect(preflight.status == 204)
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
