import Foundation
import HearthCore
import HearthStore
import Testing

/// Changes to how an account signs in (its e-mail, a password, a second factor) asked with an end user's ID token:
/// a recent sign-in unless an anonymous account gains its first credential, never over an existing password
/// provider, the replaced verified address told, other sessions ended. Through the router, production mode.
@Suite("Sign-in method changes")
struct SignInMethodChangeTests {
    static let stale: TimeInterval = 6 * 60

    func signInLink(_ c: Client, _ h: Harness, for email: String) async throws -> String {
        var settings = EmailLinkSignInTests.signInSettings
        settings["email"] = .string(email)
        #expect(try await c.post("/v1/accounts:sendOobCode", .object(settings)).status == 200)
        let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
        #expect(mail.email == email && mail.kind == .emailSignIn)
        return mail.oobCode
    }

    /// `owner-1`, made by an admin with the verified address owner@example.com, and a session of it (begun after
    /// the admin's change, which ends earlier ones).
    func ownerSession(_ c: Client, _ h: Harness, _ account: TestServiceAccount) async throws -> Client.Reply {
        let admin = try await account.accessToken(c, now: h.clock.authClock.now())
        let made = try await c.admin(
            "/v1/projects/\(h.projectID)/accounts",
            ["localId": "owner-1", "email": "owner@example.com", "emailVerified": true], token: admin)
        #expect(made.status == 200, "\(made.json)")
        let custom = try account.customToken(uid: "owner-1", now: h.clock.authClock.now())
        let session = try await c.post("/v1/accounts:signInWithCustomToken", ["token": .string(custom)])
        #expect(session.status == 200, "\(session.json)")
        return session
    }

    func linkEmail(_ c: Client, _ email: String, code: String, idToken: String?) async throws -> Client.Reply {
        var body: [String: JSONValue] = ["email": .string(email), "oobCode": .string(code)]
        if let idToken { body["idToken"] = .string(idToken) }
        return try await c.post("/v1/accounts:signInWithEmailLink", .object(body))
    }

    func linkPassword(_ c: Client, _ email: String, idToken: String) async throws -> Client.Reply {
        try await c.post(
            "/v1/accounts:signUp",
            ["email": .string(email), "password": "attacker-1", "idToken": .string(idToken), "returnSecureToken": true])
    }

    /// An account that signs in with a custom token and has a verified address (an app's own login, say): a token
    /// that has outlived its sign-in, even refreshed, cannot give it another address or a password by any door.
    @Test func aStaleTokenChangesNoAddressOrPassword() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { c in
            let session = try await ownerSession(c, h, account)
            h.clock.advance(Self.stale)
            // A refresh keeps the session's sign-in time: the token is as old as the sign-in.
            let refreshed = try await c.refresh(try #require(session.string("refreshToken")))
            let stolen = try #require(refreshed.string("id_token"))

            let code = try await signInLink(c, h, for: "thief@example.com")
            #expect(
                try await linkEmail(c, "thief@example.com", code: code, idToken: stolen).errorCode
                    == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            #expect(
                try await linkPassword(c, "thief2@example.com", idToken: stolen).errorCode
                    == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let change = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(stolen),
                    "newEmail": "thief3@example.com",
                ])
            #expect(change.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")

            let owner = try #require(try await h.store.user(projectID: h.projectID, uid: "owner-1"))
            #expect(owner.email == "owner@example.com" && owner.emailVerified && owner.passwordHash == nil)
            #expect(
                try await h.store.emailOutbox(projectID: h.projectID).allSatisfy { $0.email != "thief3@example.com" })
            // The refused link was not spent: its owner can still sign in with it.
            #expect(try await linkEmail(c, "thief@example.com", code: code, idToken: nil)["isNewUser"] == .bool(true))
        }
    }

    /// With a fresh sign-in the owner may move the account to another address by e-mail link: the old verified
    /// address gets a RECOVER_EMAIL link and every earlier session ends.
    @Test func aFreshLinkMovesTheAccountTellsTheOldAddressAndEndsOtherSessions() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { c in
            let other = try await ownerSession(c, h, account)
            h.clock.advance(2)
            let fresh = try await c.post(
                "/v1/accounts:signInWithCustomToken",
                ["token": .string(try account.customToken(uid: "owner-1", now: h.clock.authClock.now()))])
            let code = try await signInLink(c, h, for: "new@example.com")
            let linked = try await linkEmail(c, "new@example.com", code: code, idToken: fresh.string("idToken"))
            #expect(linked.status == 200, "\(linked.json)")
            #expect(linked.string("localId") == "owner-1" && linked.string("email") == "new@example.com")

            let notice = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(notice.kind == .recoverEmail && notice.email == "owner@example.com")
            #expect(try await c.refresh(try #require(other.string("refreshToken"))).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.refresh(try #require(fresh.string("refreshToken"))).errorCode == "TOKEN_EXPIRED")
            let newSession = try #require(linked.string("refreshToken"))
            #expect(try await c.refresh(newSession).status == 200)
        }
    }

    /// An account that already signs in with e-mail and password (or an e-mail link) keeps them: linking another
    /// address's link or a new e-mail/password is PROVIDER_ALREADY_LINKED, however fresh the token.
    @Test func linkingNeverReplacesAnExistingPasswordProvider() async throws {
        let h = try await Harness()
        try await h.run { c in
            let up = try await c.signUp(email: "ada@example.com", password: "secret-1")
            let idToken = try #require(up.string("idToken"))
            let code = try await signInLink(c, h, for: "eve@example.com")
            #expect(
                try await linkEmail(c, "eve@example.com", code: code, idToken: idToken).errorCode
                    == "PROVIDER_ALREADY_LINKED")
            #expect(
                try await linkPassword(c, "eve2@example.com", idToken: idToken).errorCode == "PROVIDER_ALREADY_LINKED")
            // A link for the address the account has only proves it.
            let own = try await signInLink(c, h, for: "ada@example.com")
            let proved = try await linkEmail(c, "ada@example.com", code: own, idToken: idToken)
            #expect(proved.status == 200 && proved.string("localId") == up.string("localId"))

            let byLink = try await linkEmail(c, "eve@example.com", code: code, idToken: nil)
            #expect(byLink["isNewUser"] == .bool(true))
            let linkToken = try #require(byLink.string("idToken"))
            #expect(
                try await linkPassword(c, "mallory@example.com", idToken: linkToken).errorCode
                    == "PROVIDER_ALREADY_LINKED")
            let kept = try #require(try await h.store.user(projectID: h.projectID, email: "eve@example.com"))
            #expect(kept.passwordHash == nil)
        }
    }

    /// The anonymous upgrade works with a session of any age, by each door the SDKs use.
    @Test func anAnonymousAccountGainsItsFirstCredentialWithAnOldSession() async throws {
        let h = try await Harness()
        try await h.run { c in
            let sessions = [try await c.signUp(), try await c.signUp(), try await c.signUp()]
            h.clock.advance(2 * 3600)
            // The SDKs refresh the ID token; the sign-in it names stays two hours old.
            var tokens: [String] = []
            for session in sessions {
                let refreshed = try await c.refresh(try #require(session.string("refreshToken")))
                tokens.append(try #require(refreshed.string("id_token")))
            }
            let upgraded = try await linkPassword(c, "anon1@example.com", idToken: tokens[0])
            #expect(upgraded.status == 200 && upgraded.string("localId") == sessions[0].string("localId"))
            let code = try await signInLink(c, h, for: "anon2@example.com")
            let linked = try await linkEmail(c, "anon2@example.com", code: code, idToken: tokens[1])
            #expect(linked.status == 200 && linked.string("localId") == sessions[1].string("localId"))
            let password = try await c.post(
                "/v1/accounts:update", ["idToken": .string(tokens[2]), "password": "anon-pass-3"])
            #expect(password.status == 200, "\(password.json)")
            // Once it has a credential the account is no longer anonymous: the next change needs a recent sign-in.
            h.clock.advance(Self.stale)
            let again = try await c.post(
                "/v1/accounts:update",
                ["idToken": .string(try #require(upgraded.string("idToken"))), "password": "another-pass"])
            #expect(again.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        }
    }
}
