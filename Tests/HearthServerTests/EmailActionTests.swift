import Foundation
import HearthCore
import HearthStore
import Hummingbird
import Testing

@Suite("E-mail action links")
struct EmailActionTests {
    func code(in link: String?) throws -> String {
        let items = URLComponents(string: try #require(link))?.queryItems ?? []
        return try #require(items.first { $0.name == "oobCode" }?.value)
    }

    @Test func anAdminsResetLinkSetsANewPasswordOnceAndEndsEarlierSessions() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let reply = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true], token: token)
            let link = try #require(reply.string("oobLink"))
            #expect(link.hasPrefix("https://\(h.projectID).firebaseapp.com/__/auth/action?mode=resetPassword&oobCode="))
            let oob = try code(in: link)
            #expect(reply.string("oobCode") == oob)
            #expect(try await h.store.emailOutbox(projectID: h.projectID).isEmpty, "a returned link is not sent")

            let checked = try await c.post("/v1/accounts:resetPassword", ["oobCode": .string(oob)])
            #expect(checked.string("requestType") == "PASSWORD_RESET" && checked.string("email") == "ada@example.com")
            h.clock.advance(2)
            #expect(
                try await c.post("/v1/accounts:resetPassword", ["oobCode": .string(oob), "newPassword": "123"])
                    .errorCode == "WEAK_PASSWORD")
            let reset = try await c.post(
                "/v1/accounts:resetPassword", ["oobCode": .string(oob), "newPassword": "newpass1"])
            #expect(reset.status == 200)
            #expect(try await c.signIn("ada@example.com", "newpass1").status == 200)
            #expect(try await c.signIn("ada@example.com", "secret1").status == 400)
            #expect(try await h.store.user(projectID: h.projectID, email: "ada@example.com")?.emailVerified == true)
            #expect(try await c.refresh(try #require(session.string("refreshToken"))).errorCode == "TOKEN_EXPIRED")
            let again = try await c.post(
                "/v1/accounts:resetPassword", ["oobCode": .string(oob), "newPassword": "other12"])
            #expect(again.errorCode == "INVALID_OOB_CODE", "a code works once")
        }
    }

    @Test func clientsRequestLinksThatGoToTheOutboxAndNeverRevealUnknownAddresses() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            let unknown = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "who@example.com"])
            #expect(unknown.status == 200, "enumeration protection answers as for a known address")
            let known = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            #expect(known.status == 200 && known.string("oobLink") == nil)
            let outbox = try await c.send("/emulator/v1/projects/\(h.projectID)/oobCodes", method: .get, key: nil)
            let listed = try #require(outbox["oobCodes"]?.arrayValue)
            #expect(listed.count == 1)
            #expect(listed.first?["email"]?.stringValue == "ada@example.com")
            #expect(listed.first?["requestType"]?.stringValue == "PASSWORD_RESET")

            let asked = try await c.post(
                "/v1/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true])
            #expect(asked.errorCode == "INSUFFICIENT_PERMISSION")
            #expect(
                try await c.post("/v1/accounts:sendOobCode", ["email": "ada@example.com"]).errorCode
                    == "MISSING_REQ_TYPE")
            #expect(try await c.post("/v1/accounts:resetPassword", ["oobCode": "nope"]).errorCode == "INVALID_OOB_CODE")
        }
    }

    @Test func withoutEnumerationProtectionAnUnknownAddressIsSaid() async throws {
        let h = try await Harness { $0.emailEnumerationProtection = false }
        try await h.run { (c: Client) async throws in
            let unknown = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "who@example.com"])
            #expect(unknown.errorCode == "EMAIL_NOT_FOUND")
        }
    }

    @Test func verificationLinksConfirmOrChangeTheAddress() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let idToken = try #require(session.string("idToken"))
            _ = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
            let verify = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(verify.kind == .verifyEmail && verify.oobLink.contains("mode=verifyEmail"))
            let confirmed = try await c.post("/v1/accounts:update", ["oobCode": .string(verify.oobCode)])
            #expect(confirmed["emailVerified"] == .bool(true))

            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken),
                    "newEmail": "Lovelace@example.com",
                ])
            let change = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            #expect(change.kind == .verifyAndChangeEmail)
            // Expired links do nothing.
            h.clock.advance(3 * 86400 + 1)
            #expect(
                try await c.post("/v1/accounts:update", ["oobCode": .string(change.oobCode)]).errorCode
                    == "INVALID_OOB_CODE")
            #expect(try await h.store.user(projectID: h.projectID, email: "ada@example.com") != nil)
        }
    }

    @Test func aChangeLinkMovesTheAccountToTheNewVerifiedAddress() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            _ = try await c.post(
                "/v1/accounts:sendOobCode",
                [
                    "requestType": "VERIFY_AND_CHANGE_EMAIL",
                    "idToken": .string(try #require(session.string("idToken"))),
                    "newEmail": "Lovelace@example.com",
                ])
            let change = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let moved = try await c.post("/v1/accounts:update", ["oobCode": .string(change.oobCode)])
            #expect(moved.string("email") == "lovelace@example.com" && moved["emailVerified"] == .bool(true))
            #expect(try await c.signIn("lovelace@example.com", "secret1").status == 200)
            #expect(
                try await c.post(
                    "/v1/accounts:resetPassword", ["oobCode": .string(change.oobCode), "newPassword": "x12345"]
                ).errorCode == "INVALID_OOB_CODE")
        }
    }
}
