import Foundation
import HearthCore
import Testing

/// Continue URLs and the auth handler's redirect are judged as the browser that follows them reads them.
@Suite("Redirect targets")
struct RedirectTargetTests {
    /// Strings Foundation reads as a URL on an authorized host and a browser does not (the cases).
    static let tricks = [
        "https://evil.example\\@localhost/", "https://evil.example\\@app.example.com/done",
        "javascript://localhost/%0aalert(document.cookie)", "javascript://app.example.com/%0aalert(1)",
        "data://app.example.com/x", "https://user@app.example.com/done", "http://app.example.com/done",
    ]

    @Test func continueURLsThatLeaveTheAuthorizedDomainsAreRefusedAndNothingIsSent() async throws {
        let h = try await Harness { $0.authorizedDomains = ["localhost", "app.example.com"] }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret-1")
            for continueURL in Self.tricks {
                let reply = try await c.post(
                    "/v1/accounts:sendOobCode",
                    [
                        "requestType": "EMAIL_SIGNIN", "email": "ada@example.com", "canHandleCodeInApp": true,
                        "continueUrl": .string(continueURL),
                    ])
                #expect(reply.status == 400 && reply.errorCode == "UNAUTHORIZED_DOMAIN", "\(continueURL)")
                let reset = try await c.post(
                    "/v1/accounts:sendOobCode",
                    ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "continueUrl": .string(continueURL)])
                #expect(reset.status == 400 && reset.errorCode == "UNAUTHORIZED_DOMAIN", "\(continueURL)")
            }
            let fine = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "ada@example.com", "canHandleCodeInApp": true,
                    "continueUrl": "https://app.example.com/done",
                ])
            #expect(fine.status == 200)
            let project = try #require(h.engine.projects.config(h.projectID))
            for url in Self.tricks {
                #expect(!h.engine.isAllowedSignInRedirect(url, project: project), "\(url)")
                #expect(!h.engine.isAuthorizedContinueURL(url, project: project), "\(url)")
            }
            #expect(h.engine.isAllowedSignInRedirect("hearth-test-project://firebaseauth/link", project: project))
            #expect(!h.engine.isAllowedSignInRedirect("hearth-test-project://evil@firebaseauth/link", project: project))
            #expect(h.engine.isAllowedSignInRedirect("http://localhost/finish", project: project))
        }
    }
}
