import Foundation
import HTTPTypes
import HearthCore
import Hummingbird
import Testing

/// The emulator's e-mail links, as the Firebase Auth Emulator makes them: they open `/emulator/action` on the host
/// the request reached and carry the request's API key (the JS SDK's `isSignInWithEmailLink` requires it), and that
/// route uses the code at once, answering in the emulator's JSON or sending the browser on.
@Suite("Emulator action links")
struct EmulatorActionTests {
    func lastLink(_ c: Client, _ h: Harness) async throws -> URLComponents {
        let listed = try await c.send("/emulator/v1/projects/\(h.projectID)/oobCodes", method: .get, key: nil)
        let link = try #require(listed["oobCodes"]?.arrayValue?.last?["oobLink"]?.stringValue)
        return try #require(URLComponents(string: link))
    }

    func query(_ link: URLComponents) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (link.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    /// The link as a browser would request it, on this router.
    func open(_ c: Client, _ link: URLComponents) async throws -> Client.Reply {
        try await c.send(link.path + "?" + (link.percentEncodedQuery ?? ""), method: .get, key: nil)
    }

    @Test func aVerificationLinkCarriesTheKeyAndIsUsedOnce() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            let idToken = try #require(
                try await c.signUp(email: "ada@example.com", password: "secret1").string("idToken"))
            _ = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
            let link = try await lastLink(c, h)
            #expect(link.scheme == "http" && link.host == "localhost" && link.path == "/emulator/action")
            let q = query(link)
            #expect(q["mode"] == "verifyEmail" && q["apiKey"] == Harness.apiKey && q["lang"] == "en")
            #expect(q["oobCode"]?.isEmpty == false && q["projectId"] == nil, "the key names the default project")

            let used = try await open(c, link)
            #expect(used.status == 200)
            #expect(used["authEmulator"]?["email"]?.stringValue == "ada@example.com")
            #expect(try await c.lookup(idToken)["users"]?[0]?["emailVerified"] == .bool(true))
            let again = try await open(c, link)
            #expect(again.status == 400 && again["authEmulator"]?["error"] != nil)
        }
    }

    @Test func aResetLinkNeedsTheNewPasswordThenGoesOn() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "PASSWORD_RESET", "email": "ada@example.com",
                    "continueUrl": "http://localhost:5000/done",
                ])
            var link = try await lastLink(c, h)
            let asked = try await open(c, link)
            #expect(
                asked.status == 400
                    && asked["authEmulator"]?["error"]?.stringValue == "missing newPassword query parameter")
            #expect(try await c.signIn("ada@example.com", "secret1").status == 200, "asking spent nothing")

            link.queryItems = (link.queryItems ?? []) + [URLQueryItem(name: "newPassword", value: "second-pass")]
            let done = try await open(c, link)
            #expect(done.status == 303 && done.headers[.location] == "http://localhost:5000/done")
            #expect(try await c.signIn("ada@example.com", "second-pass").status == 200)
            #expect(try await open(c, link).status == 400)
        }
    }

    @Test func aSignInLinkSendsTheBrowserToTheAppWithTheLinksParameters() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "ada@example.com", "canHandleCodeInApp": true,
                    "continueUrl": "http://localhost:5000/finish?step=2",
                ])
            let link = try await lastLink(c, h)
            let q = query(link)
            let sent = try await open(c, link)
            #expect(sent.status == 303)
            let target = try #require(sent.headers[.location].flatMap(URLComponents.init(string:)))
            #expect(target.host == "localhost" && target.port == 5000 && target.path == "/finish")
            let passed = query(target)
            #expect(passed["step"] == "2" && passed["continueUrl"] == nil)
            #expect(
                passed["mode"] == "signIn" && passed["oobCode"] == q["oobCode"] && passed["apiKey"] == Harness.apiKey)

            // The app signs in with the URL it landed on: the code is still unused.
            let signedIn = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(q["oobCode"]!)])
            #expect(signedIn.status == 200)
        }
    }

    @Test func anEditedLinkIsRefused() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            let script = try await c.send(
                "/emulator/action?mode=signIn&oobCode=x&apiKey=\(Harness.apiKey)&continueUrl=javascript:alert(1)",
                method: .get, key: nil)
            #expect(script.status == 400 && script.headers[.location] == nil)
            let keyless = try await c.send("/emulator/action?mode=verifyEmail&oobCode=x", method: .get, key: nil)
            #expect(
                keyless.status == 400
                    && keyless["authEmulator"]?["error"]?.stringValue == "missing apiKey query parameter")
            let key = Harness.apiKey
            let unknown = try await c.send(
                "/emulator/action?mode=verifyEmail&oobCode=x&apiKey=\(key)", method: .get, key: nil)
            #expect(unknown.status == 400 && unknown["authEmulator"]?["error"] != nil)
            let mode = try await c.send("/emulator/action?mode=explode&oobCode=x&apiKey=\(key)", method: .get, key: nil)
            #expect(mode.status == 400 && mode["authEmulator"]?["error"]?.stringValue == "Invalid mode")
        }
    }
}
