import Foundation
import HTTPTypes
import HearthCore
import HearthMessaging
import HearthStore
import Synchronization
import Testing

@Suite("E-mail link sign-in, templates and e-mail change safety")
struct EmailLinkSignInTests {
    func code(in link: String?) throws -> String {
        let items = URLComponents(string: try #require(link))?.queryItems ?? []
        return try #require(items.first { $0.name == "oobCode" }?.value)
    }

    static let signInSettings: [String: JSONValue] = [
        "requestType": "EMAIL_SIGNIN", "email": "ada@example.com", "continueUrl": "https://localhost/finish",
        "canHandleCodeInApp": true, "iOSBundleId": "com.example.app",
    ]

    @Test func aSignInLinkCreatesAVerifiedAccountOnceThenSignsItIn() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let sent = try await c.post("/v1/accounts:sendOobCode", .object(Self.signInSettings))
            #expect(sent.status == 200 && sent.string("email") == "ada@example.com")
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(mail.kind == .emailSignIn && mail.oobLink.contains("mode=signIn"))
            #expect(mail.oobLink.contains("continueUrl=https://localhost/finish"))

            // Checking the code does not say whose it is.
            let checked = try await c.post("/v1/accounts:resetPassword", ["oobCode": .string(mail.oobCode)])
            #expect(checked.string("requestType") == "EMAIL_SIGNIN" && checked.string("email") == nil)
            let wrong = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "eve@example.com", "oobCode": .string(mail.oobCode)])
            #expect(wrong.errorCode == "INVALID_EMAIL")
            let signedUp = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "Ada@Example.com", "oobCode": .string(mail.oobCode)])
            #expect(signedUp.status == 200 && signedUp["isNewUser"] == .bool(true))
            #expect(signedUp.string("idToken") != nil && signedUp.string("refreshToken") != nil)
            let user = try #require(try await h.store.user(projectID: h.projectID, email: "ada@example.com"))
            #expect(user.emailVerified && user.passwordHash == nil)
            let again = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(mail.oobCode)])
            #expect(again.errorCode == "INVALID_OOB_CODE", "a link works once")

            // A second link signs in to the same account, through the v3 path the iOS SDK uses.
            _ = try await c.post("/v1/accounts:sendOobCode", .object(Self.signInSettings))
            let second = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let signedIn = try await c.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/emailLinkSignin",
                ["email": "ada@example.com", "oobCode": .string(second.oobCode)])
            #expect(signedIn["isNewUser"] == .bool(false) && signedIn.string("localId") == user.uid)
        }
    }

    @Test func aSignedInUserLinksTheAddressAndAnotherAccountsAddressIsRefused() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "taken@example.com", password: "secret1")
            let anonymous = try await c.signUp()
            let idToken = try #require(anonymous.string("idToken"))
            _ = try await c.post("/v1/accounts:sendOobCode", .object(Self.signInSettings))
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let linked = try await c.post(
                "/v1/accounts:signInWithEmailLink",
                ["email": "ada@example.com", "oobCode": .string(mail.oobCode), "idToken": .string(idToken)])
            #expect(linked.string("localId") == anonymous.string("localId"))
            #expect(linked.string("email") == "ada@example.com")

            var taken = Self.signInSettings
            taken["email"] = "taken@example.com"
            _ = try await c.post("/v1/accounts:sendOobCode", .object(taken))
            let other = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let refused = try await c.post(
                "/v1/accounts:signInWithEmailLink",
                ["email": "taken@example.com", "oobCode": .string(other.oobCode), "idToken": .string(idToken)])
            #expect(refused.errorCode == "EMAIL_EXISTS")
        }
    }

    @Test func actionCodeSettingsAreCheckedAsFirebaseChecksThem() async throws {
        let h = try await Harness { $0.authorizedDomains = ["localhost", "app.example.com"] }
        try await h.run { (c: Client) async throws in
            func send(_ change: (inout [String: JSONValue]) -> Void) async throws -> String? {
                var body = Self.signInSettings
                change(&body)
                let reply = try await c.post("/v1/accounts:sendOobCode", .object(body))
                return reply.errorCode ?? "\(reply.status)"
            }
            #expect(try await send { $0["continueUrl"] = "https://app.example.com/done" } == "200")
            #expect(try await send { $0["continueUrl"] = "https://evil.example.net/" } == "UNAUTHORIZED_DOMAIN")
            #expect(try await send { $0["continueUrl"] = "not a url" } == "INVALID_CONTINUE_URI")
            #expect(try await send { $0["continueUrl"] = nil } == "MISSING_CONTINUE_URI")
            #expect(try await send { $0["canHandleCodeInApp"] = false } == "INVALID_ARGUMENT")
            #expect(try await send { $0["iOSBundleId"] = "" } == "MISSING_IOS_BUNDLE_ID")
            #expect(try await send { $0["linkDomain"] = "links.evil.net" } == "INVALID_HOSTING_LINK_DOMAIN")
            #expect(try await send { $0["linkDomain"] = "app.example.com" } == "200")
        }
    }

    @Test func projectTemplatesFillFirebasesPlaceholdersEscapedInHTML() async throws {
        let sent = Mutex<[EmailMessage]>([])
        struct Recorder: EmailSender {
            let sent: @Sendable (EmailMessage) -> Void
            func send(_ message: EmailMessage) async throws { sent(message) }
        }
        let h = try await Harness(emailSender: Recorder { m in sent.withLock { $0.append(m) } }) {
            $0.email.appName = "Ada's App"
            $0.email.templates.verifyEmail = EmailTemplate(
                senderName: "%APP_NAME% accounts", subject: "Welcome %DISPLAY_NAME%",
                body: "<p>Hi %DISPLAY_NAME% (%EMAIL%), <a href=\"%LINK%\">verify</a> for %APP_NAME%. 100%</p>")
        }
        try await h.run { (c: Client) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let idToken = try #require(session.string("idToken"))
            _ = try await c.post(
                "/v1/accounts:update", ["idToken": .string(idToken), "displayName": "<b>Ada</b> & %EMAIL%"])
            #expect(
                try await c.post("/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
                    .status == 200)
            let m = try #require(sent.withLock { $0.first })
            #expect(m.senderName == "Ada's App accounts")
            #expect(m.subject == "Welcome <b>Ada</b> & %EMAIL%", "a value is not expanded again")
            let link = m.link.replacingOccurrences(of: "&", with: "&amp;")
            #expect(
                m.html
                    == "<p>Hi &lt;b&gt;Ada&lt;/b&gt; &amp; %EMAIL% (ada@example.com), <a href=\"\(link)\">verify</a> for Ada&#39;s App. 100%</p>"
            )
            #expect(m.text == "Hi <b>Ada</b> & %EMAIL% (ada@example.com), verify (\(m.link)) for Ada's App. 100%\n")
        }
    }

    @Test func changingAVerifiedAddressTellsTheOldOneHowToUndoIt() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let idToken = try #require(session.string("idToken"))
            _ = try await c.post("/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
            let verify = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            _ = try await c.post("/v1/accounts:update", ["oobCode": .string(verify.oobCode)])

            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                ["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken), "newEmail": "eve@example.com"])
            let change = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(change.email == "eve@example.com", "the change link goes to the new address")
            #expect(try await c.post("/v1/accounts:update", ["oobCode": .string(change.oobCode)]).string("email")
                == "eve@example.com")
            let notice = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(notice.kind == .recoverEmail && notice.email == "ada@example.com")
            #expect(notice.oobLink.contains("mode=recoverEmail"))
            let checked = try await c.post("/v1/accounts:resetPassword", ["oobCode": .string(notice.oobCode)])
            #expect(checked.string("requestType") == "RECOVER_EMAIL" && checked.string("email") == "ada@example.com")
            #expect(checked.string("newEmail") == "eve@example.com")
            let restored = try await c.post("/v1/accounts:update", ["oobCode": .string(notice.oobCode)])
            #expect(restored.string("email") == "ada@example.com")
            #expect(try await c.signIn("ada@example.com", "secret1").status == 200)
            #expect(try await h.store.user(projectID: h.projectID, email: "eve@example.com") == nil)
        }
    }

    @Test func aLinkAccountShowsItsMethodAndAChangedAccountItsFirstAddress() async throws {
        let h = try await Harness { $0.emailEnumerationProtection = false }
        try await h.run { (c: Client) async throws in
            _ = try await c.post("/v1/accounts:sendOobCode", .object(Self.signInSettings))
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let signedIn = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(mail.oobCode)])
            let idToken = try #require(signedIn.string("idToken"))
            let methods = try await c.post(
                "/v1/accounts:createAuthUri", ["identifier": "ada@example.com", "continueUri": "http://localhost"])
            #expect(methods["signinMethods"] == ["emailLink"])
            let looked = try await c.lookup(idToken)
            #expect(looked["users"]?[0]?["emailLinkSignin"] == .bool(true))
            #expect(looked["users"]?[0]?["providerUserInfo"]?[0]?["providerId"] == "password")

            // A direct change of the verified address records the first one and tells it how to undo the change.
            let changed = try await c.post(
                "/v1/accounts:update", ["idToken": .string(idToken), "email": "eve@example.com"])
            #expect(changed.string("email") == "eve@example.com")
            let after = try await c.lookup(try #require(changed.string("idToken")))
            #expect(after["users"]?[0]?["initialEmail"] == "ada@example.com")
            let notice = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(notice.kind == .recoverEmail && notice.email == "ada@example.com")
            let restored = try await c.post("/v1/accounts:update", ["oobCode": .string(notice.oobCode)])
            #expect(restored.string("email") == "ada@example.com" && restored["emailVerified"] == .bool(true))
        }
    }
}
