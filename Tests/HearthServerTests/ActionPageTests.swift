import Foundation
import HTTPTypes
import HearthCore
import HearthStore
import Hummingbird
import Testing

/// `/__/auth/action` (HearthPages) through the router: a GET never spends a code, the POST needs the page's
/// CSRF cookie and token, and the continue URL is offered only on an authorized domain.
@Suite("Action pages")
struct ActionPageTests {
    /// What a browser keeps between the GET and the POST.
    struct Form {
        var fields: [String: String]
        var cookie: String
    }

    func open(_ c: Client, _ link: String, headers: HTTPFields = [:]) async throws -> (Client.Reply, Form?) {
        let query = try #require(URLComponents(string: link)?.percentEncodedQuery)
        let reply = try await c.send("/__/auth/action?" + query, method: .get, key: nil, headers: headers)
        let html = reply.json.stringValue ?? ""
        var fields: [String: String] = [:]
        let pattern = try NSRegularExpression(pattern: #"<input type="hidden" name="([A-Za-z]+)" value="([^"]*)">"#)
        for match in pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            let name = String(html[Range(match.range(at: 1), in: html)!])
            let value = String(html[Range(match.range(at: 2), in: html)!])
            fields[name] = value.replacingOccurrences(of: "&amp;", with: "&")
        }
        let cookie = reply.headers[.setCookie]?.split(separator: ";").first.map(String.init)
        return (reply, fields.isEmpty || cookie == nil ? nil : Form(fields: fields, cookie: cookie!))
    }

    func post(_ c: Client, _ fields: [String: String], cookie: String?, origin: String? = nil) async throws
        -> Client.Reply
    {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }.joined(separator: "&")
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        if let origin { headers[HTTPField.Name("Origin")!] = origin }
        return try await c.send(
            "/__/auth/action", method: .post, body: ByteBuffer(string: body), key: nil,
            contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    func html(_ reply: Client.Reply) -> String { reply.json.stringValue ?? "" }

    @Test func aResetPageSetsThePasswordOnlyThroughItsOwnForm() async throws {
        let h = try await Harness { $0.authorizedDomains = ["localhost", "app.example.com"] }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "continueUrl": "https://app.example.com/done"])
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)

            let (page, form) = try await open(c, mail.oobLink)
            #expect(page.status == 200)
            #expect(html(page).contains("Reset your password") && html(page).contains("<strong>ada@example.com</strong>"))
            #expect(!html(page).contains("<script"))
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.hasPrefix("default-src 'none'") == true)
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            #expect(page.headers[.setCookie]?.contains("HttpOnly; SameSite=Strict") == true)
            let f = try #require(form)
            // Opening the link again (a mail scanner, a second click) spends nothing.
            #expect(try await open(c, mail.oobLink).0.status == 200)

            var fields = f.fields
            fields["newPassword"] = "newpass1"
            #expect(try await post(c, fields, cookie: nil).status == 403, "no cookie, no change")
            var forged = fields
            forged["csrf"] = "guessed"
            #expect(try await post(c, forged, cookie: f.cookie).status == 403)
            #expect(try await post(c, fields, cookie: f.cookie, origin: "https://evil.example").status == 403)
            var weak = fields
            weak["newPassword"] = "1"
            let refused = try await post(c, weak, cookie: f.cookie)
            #expect(refused.status == 400 && html(refused).contains("too weak"))
            #expect(try await c.signIn("ada@example.com", "secret1").status == 200, "nothing changed yet")

            let done = try await post(c, fields, cookie: f.cookie, origin: "http://localhost")
            #expect(done.status == 200 && html(done).contains("Your password has been changed"))
            #expect(html(done).contains("href=\"https://app.example.com/done\""))
            #expect(try await c.signIn("ada@example.com", "newpass1").status == 200)
            #expect(try await post(c, fields, cookie: f.cookie).status == 400, "a link works once")
            #expect(try await open(c, mail.oobLink).0.status == 400)
        }
    }

    /// The token a form carries is bound to its cookie by a server secret: a cookie and token the client chose
    /// (or another site planted in the browser) agree by text and are still refused, as is the page's own token
    /// with another cookie; a browser that arrived with any cookie gets a token for it and can submit.
    @Test func aCookieAndTokenTheClientChoseAreRefused() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            _ = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let planted = "hearth_action_csrf=chosen-by-the-client"
            let (page, opened) = try await open(c, mail.oobLink, headers: [.cookie: planted])
            #expect(page.status == 200)
            let form = try #require(opened)
            #expect(form.cookie == planted, "the browser's cookie is kept")
            #expect(form.fields["csrf"] != "chosen-by-the-client")

            var fields = form.fields
            fields["newPassword"] = "newpass1"
            var chosen = fields
            chosen["csrf"] = "chosen-by-the-client"
            #expect(try await post(c, chosen, cookie: planted).status == 403)
            #expect(try await post(c, fields, cookie: "hearth_action_csrf=another-cookie").status == 403)
            #expect(try await c.signIn("ada@example.com", "secret1").status == 200, "nothing changed yet")

            #expect(try await post(c, fields, cookie: planted).status == 200)
            #expect(try await c.signIn("ada@example.com", "newpass1").status == 200)
        }
    }

    @Test func verificationAndRecoveryPagesConfirmWithAPostInTheLinksLanguage() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let idToken = try #require(session.string("idToken"))
            _ = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)],
                headers: [HTTPField.Name("X-Firebase-Locale")!: "de"])
            let verify = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let (page, form) = try await open(c, verify.oobLink)
            #expect(html(page).contains("E-Mail-Adresse bestätigen") && html(page).contains("lang=\"de\""))
            #expect(try await h.store.user(projectID: h.projectID, email: "ada@example.com")?.emailVerified == false)
            let f = try #require(form)
            let done = try await post(c, f.fields, cookie: f.cookie)
            #expect(done.status == 200 && html(done).contains("wurde bestätigt"))
            #expect(try await h.store.user(projectID: h.projectID, email: "ada@example.com")?.emailVerified == true)

            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": "eve@example.com"])
            let change = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let (changePage, changeForm) = try await open(c, change.oobLink)
            #expect(html(changePage).contains("eve@example.com"))
            let g = try #require(changeForm)
            #expect(html(try await post(c, g.fields, cookie: g.cookie)).contains("now <strong>eve@example.com</strong>"))

            let notice = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(notice.kind == .recoverEmail)
            let (_, recoverForm) = try await open(c, notice.oobLink)
            let r = try #require(recoverForm)
            #expect(try await post(c, r.fields, cookie: r.cookie).status == 200)
            #expect(try await h.store.user(projectID: h.projectID, email: "ada@example.com") != nil)
        }
    }

    @Test func aSignInLinkContinuesOnlyToAnAuthorizedPage() async throws {
        let h = try await Harness { $0.authorizedDomains = ["localhost", "app.example.com"] }
        try await h.run { (c: Client) async throws in
            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "ada@example.com",
                    "continueUrl": "https://app.example.com/finish", "canHandleCodeInApp": true,
                ])
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let (page, form) = try await open(c, mail.oobLink)
            #expect(page.status == 200 && form == nil, "nothing to post: the app completes the sign-in")
            #expect(html(page).contains("href=\"https://app.example.com/finish?mode=signIn&amp;oobCode=\(mail.oobCode)"))
            // A link whose continue URL was swapped for another site's offers no way there.
            let tampered = mail.oobLink.replacingOccurrences(
                of: "https://app.example.com/finish", with: "https://evil.example/x")
            let (other, _) = try await open(c, tampered)
            #expect(other.status == 200 && !html(other).contains("evil.example"))
            #expect(
                try await c.post(
                    "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(mail.oobCode)]
                ).status == 200, "showing the page did not use the code")
        }
    }
}
