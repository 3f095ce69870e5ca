import Foundation
import HTTPTypes
import HearthCore
import HearthMessaging
import HearthPages
import HearthServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Phone app verification's reCAPTCHA fallback (`/__/auth/handler?authType=verifyApp`): the page FirebaseAuth and
/// HearthAuth open when no silent push proves the app, and the token it hands back to the app.
@Suite("reCAPTCHA fallback page")
struct RecaptchaFallbackTests {
    static let appLink = "hearth-test-project://firebaseauth/link"

    func withHandler(
        siteKey: String?, _ body: @Sendable @escaping (Client, Harness, SMSSink) async throws -> Void
    ) async throws {
        let siteverify = SMSSink()
        try await siteverify.serve { base in
            let verifier = RecaptchaVerifier(
                configuration: .init(secret: "server-secret", siteverifyURL: base + "/siteverify", siteKey: siteKey))
            let h = try await Harness(recaptcha: verifier) { $0.phone.appVerification = .recaptcha }
            let app = Application(
                router: HearthApplication.router(
                    engine: h.engine,
                    pages: { AuthHandlerPage(engine: h.engine, publicURL: "https://auth.example").register(on: $0) }),
                logger: testLogger)
            try await app.test(.router) { client in try await body(Client(client: client), h, siteverify) }
        }
    }

    static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }

    static func query(_ url: String) -> [String: String] {
        var out: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { out[item.name] = item.value ?? "" }
        return out
    }

    @Test func theSolvedTokenGoesBackToTheAppAndTheCodeRequestChecksIt() async throws {
        try await withHandler(siteKey: "site-key-1") { c, h, siteverify in
            let page = try await c.send(
                "/__/auth/handler?apiKey=\(Harness.apiKey)&authType=verifyApp&eventId=ev1&redirectUrl="
                    + Self.escape(Self.appLink), method: .get, key: nil)
            #expect(page.status == 200)
            let html = page.json.stringValue ?? ""
            #expect(html.contains(#"data-sitekey="site-key-1""#))
            #expect(html.contains(#"name="redirectUrl" value="hearth-test-project://firebaseauth/link""#))
            let policy = page.headers[HTTPField.Name("Content-Security-Policy")!] ?? ""
            #expect(policy.contains("https://www.google.com/recaptcha/") && policy.contains("frame-ancestors 'none'"))

            // What the page's form posts when the widget calls back.
            let form =
                "apiKey=\(Harness.apiKey)&authType=verifyApp&eventId=ev1&redirectUrl=\(Self.escape(Self.appLink))"
                + "&g-recaptcha-response=solved-token"
            let posted = try await c.send(
                "/__/auth/handler", method: .post, body: ByteBuffer(string: form), key: nil,
                contentType: "application/x-www-form-urlencoded")
            #expect(posted.status == 302)
            let location = try #require(posted.headers[.location])
            #expect(location.hasPrefix(Self.appLink + "?deep_link_id="))
            let link = try #require(Self.query(location)["deep_link_id"])
            #expect(link.hasPrefix("https://auth.example/__/auth/handler?"))
            #expect(Self.query(link)["recaptchaToken"] == "solved-token")
            #expect(Self.query(link)["eventId"] == "ev1")

            // The app sends the token with the code request; only then is it checked, at siteverify.
            siteverify.reply.withLock { $0 = (.ok, #"{"success":true,"hostname":"auth.example"}"#) }
            let sent = try await c.post(
                "/v1/accounts:sendVerificationCode",
                ["phoneNumber": "+447400123456", "recaptchaToken": .string(Self.query(link)["recaptchaToken"] ?? "")])
            #expect(sent.status == 200)
            #expect(siteverify.received.withLock { $0.last }?.body.contains("response=solved-token") == true)
            #expect(try await h.store.outbox(projectID: h.projectID).count == 1)
        }
    }

    @Test func theHandlerRefusesAForeignRedirectAnUnsolvedFormAndAServerWithoutASiteKey() async throws {
        try await withHandler(siteKey: "site-key-1") { c, _, _ in
            for target in ["https://evil.example/steal", "hearth-other://firebaseauth/link", "javascript:alert(1)"] {
                let page = try await c.send(
                    "/__/auth/handler?apiKey=\(Harness.apiKey)&authType=verifyApp&redirectUrl=" + Self.escape(target),
                    method: .get, key: nil)
                #expect(page.status == 400, "\(target)")
                #expect(page.headers[.location] == nil)
            }
            let unsolved = try await c.send(
                "/__/auth/handler", method: .post,
                body: ByteBuffer(
                    string: "apiKey=\(Harness.apiKey)&authType=verifyApp&redirectUrl=\(Self.escape(Self.appLink))"),
                key: nil, contentType: "application/x-www-form-urlencoded")
            #expect(unsolved.status == 400 && unsolved.headers[.location] == nil)
            // The OAuth half of the handler takes no posts.
            let oauthPost = try await c.send(
                "/__/auth/handler", method: .post, body: ByteBuffer(string: "state=x&code=y"), key: nil,
                contentType: "application/x-www-form-urlencoded")
            #expect(oauthPost.status == 400)
        }
        try await withHandler(siteKey: nil) { c, _, _ in
            let page = try await c.send(
                "/__/auth/handler?apiKey=\(Harness.apiKey)&authType=verifyApp&redirectUrl=" + Self.escape(Self.appLink),
                method: .get, key: nil)
            #expect(page.status == 302)
            let location = try #require(page.headers[.location])
            let error = try #require(Self.query(location)["firebaseError"])
            #expect(error.contains("auth/operation-not-allowed"))
        }
    }
}
