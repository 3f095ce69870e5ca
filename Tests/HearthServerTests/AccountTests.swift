import Foundation
import HearthCore
import Testing

@Suite("accounts:lookup, update, delete, createAuthUri")
struct AccountTests {
    @Test func lookupReturnsFirebaseShapedUser() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "mo@example.com", password: "pass-word")
            let r = try await c.lookup(up.string("idToken")!)
            #expect(r.status == 200)
            #expect(r.string("kind") == "identitytoolkit#GetAccountInfoResponse")
            guard case .array(let users)? = r["users"] else { Issue.record("no users array"); return }
            #expect(users.count == 1)
            let u = users[0]
            #expect(u["localId"]?.stringValue == up.string("localId"))
            #expect(u["email"]?.stringValue == "mo@example.com")
            #expect(u["emailVerified"] == .bool(false))
            #expect(u["passwordHash"]?.stringValue == "UkVEQUNURUQ=")
            // Firebase's JSON types: createdAt/lastLoginAt strings of ms, validSince a string of s, passwordUpdatedAt a number.
            let createdAt = try #require(u["createdAt"]?.stringValue)
            #expect(Int64(createdAt) != nil && createdAt.count == 13)
            #expect(u["lastLoginAt"]?.stringValue != nil)
            #expect(u["validSince"]?.stringValue.flatMap(Int64.init) != nil)
            #expect(u["passwordUpdatedAt"]?.doubleValue != nil)
            guard case .array(let providers)? = u["providerUserInfo"] else { Issue.record("no providers"); return }
            #expect(providers.first?["providerId"]?.stringValue == "password")
            #expect(providers.first?["federatedId"]?.stringValue == "mo@example.com")
        }
    }

    @Test func lookupWithoutTokenIsMissingIDToken() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.post("/v1/accounts:lookup", [:])
            #expect(r.errorCode == "MISSING_ID_TOKEN")
        }
    }

    @Test func profileUpdateAndAttributeDeletion() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "p@example.com", password: "pass-word")
            let token = up.string("idToken")!
            let r = try await c.post(
                "/v1/accounts:update",
                [
                    "idToken": .string(token), "displayName": "Pat", "photoUrl": "https://example.com/p.png",
                    "returnSecureToken": true,
                ])
            #expect(r.status == 200)
            #expect(r.string("kind") == "identitytoolkit#SetAccountInfoResponse")
            #expect(r.string("displayName") == "Pat")
            #expect(r.string("photoUrl") == "https://example.com/p.png")
            #expect(r["idToken"] == nil)  // profile-only changes issue no new tokens
            let cleared = try await c.post(
                "/v1/accounts:update", ["idToken": .string(token), "deleteAttribute": ["DISPLAY_NAME", "PHOTO_URL"]])
            #expect(cleared["displayName"] == nil)
            #expect(cleared["photoUrl"] == nil)
            let stored = try #require(try await h.store.user(projectID: h.projectID, email: "p@example.com"))
            #expect(stored.displayName == nil && stored.photoURL == nil)
            let bad = try await c.post("/v1/accounts:update", ["idToken": .string(token), "deleteAttribute": ["NOPE"]])
            #expect(bad.status == 400)
        }
    }

    @Test func passwordChangeEndsEarlierSessions() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "q@example.com", password: "first-pass")
            h.clock.advance(2)
            let r = try await c.post(
                "/v1/accounts:update",
                ["idToken": .string(up.string("idToken")!), "password": "second-pass", "returnSecureToken": true])
            #expect(r.status == 200)
            let newToken = try #require(r.string("idToken"))
            #expect(r.string("refreshToken") != nil)

            #expect(try await c.lookup(up.string("idToken")!).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.refresh(up.string("refreshToken")!).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.lookup(newToken).status == 200)
            #expect(try await c.refresh(r.string("refreshToken")!).status == 200)
            #expect(try await c.signIn("q@example.com", "first-pass").errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await c.signIn("q@example.com", "second-pass").status == 200)
        }
    }

    @Test func sensitiveChangesNeedARecentSignIn() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "r@example.com", password: "first-pass")
            h.clock.advance(6 * 60)
            let token = up.string("idToken")!
            let change = try await c.post(
                "/v1/accounts:update", ["idToken": .string(token), "password": "another-pass"])
            #expect(change.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            let delete = try await c.post("/v1/accounts:delete", ["idToken": .string(token)])
            #expect(delete.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
            // A profile change is not sensitive.
            #expect(
                try await c.post("/v1/accounts:update", ["idToken": .string(token), "displayName": "R"]).status == 200)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func emailChangeFollowsTheProjectsPrivacySetting() async throws {
        let protected = try await Harness()
        try await protected.run { (c: Client) async throws in
            let up = try await c.signUp(email: "s@example.com", password: "pass-word")
            let r = try await c.post(
                "/v1/accounts:update", ["idToken": .string(up.string("idToken")!), "email": "t@example.com"])
            #expect(r.errorCode == "OPERATION_NOT_ALLOWED")
        }
        let open = try await Harness { $0.emailEnumerationProtection = false }
        try await open.run { (c: Client) async throws in
            let up = try await c.signUp(email: "s@example.com", password: "pass-word")
            _ = try await c.signUp(email: "taken@example.com", password: "pass-word")
            let taken = try await c.post(
                "/v1/accounts:update", ["idToken": .string(up.string("idToken")!), "email": "TAKEN@example.com"])
            #expect(taken.errorCode == "EMAIL_EXISTS")
            let r = try await c.post(
                "/v1/accounts:update",
                ["idToken": .string(up.string("idToken")!), "email": "T@example.com", "returnSecureToken": true])
            #expect(r.status == 200)
            #expect(r.string("email") == "t@example.com")
            #expect(r["emailVerified"] == .bool(false))
            #expect(r.string("idToken") != nil)
            #expect(try await c.signIn("t@example.com", "pass-word").status == 200)
        }
    }

    @Test func unlinkingPasswordRemovesTheCredential() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "u@example.com", password: "pass-word")
            let r = try await c.post(
                "/v1/accounts:update", ["idToken": .string(up.string("idToken")!), "deleteProvider": ["password"]])
            #expect(r.status == 200)
            #expect(r["email"] == nil)
            #expect(try await c.signIn("u@example.com", "pass-word").errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func deleteRemovesTheAccountAndItsSessions() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "v@example.com", password: "pass-word")
            let r = try await c.post("/v1/accounts:delete", ["idToken": .string(up.string("idToken")!)])
            #expect(r.status == 200)
            #expect(r.json == ["kind": "identitytoolkit#DeleteAccountResponse"])
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
            #expect(try await c.lookup(up.string("idToken")!).errorCode == "USER_NOT_FOUND")
            #expect(try await c.refresh(up.string("refreshToken")!).errorCode == "USER_NOT_FOUND")
        }
    }

    @Test func createAuthUriRevealsNothingUnderProtection() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "w@example.com", password: "pass-word")
            for email in ["w@example.com", "nobody@example.com"] {
                let r = try await c.post(
                    "/v1/accounts:createAuthUri", ["identifier": .string(email), "continueUri": "http://localhost"])
                #expect(r.status == 200)
                #expect(Set(r.json.objectValue!.keys) == ["kind", "sessionId"])
            }
        }
    }

    @Test func createAuthUriListsMethodsWithoutProtection() async throws {
        let h = try await Harness { $0.emailEnumerationProtection = false }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "w@example.com", password: "pass-word")
            let known = try await c.post(
                "/v1/accounts:createAuthUri", ["identifier": "W@example.com", "continueUri": "http://localhost"])
            #expect(known["registered"] == .bool(true))
            #expect(known["signinMethods"] == ["password"])
            let unknown = try await c.post(
                "/v1/accounts:createAuthUri", ["identifier": "x@example.com", "continueUri": "http://localhost"])
            #expect(unknown["registered"] == .bool(false))
            #expect(
                try await c.post("/v1/accounts:createAuthUri", ["continueUri": "http://localhost"]).errorCode
                    == "MISSING_IDENTIFIER")
            #expect(
                try await c.post("/v1/accounts:createAuthUri", ["identifier": "x@example.com"]).errorCode
                    == "MISSING_CONTINUE_URI")
            #expect(
                try await c.post("/v1/accounts:createAuthUri", ["identifier": "x", "continueUri": "http://l"]).errorCode
                    == "INVALID_IDENTIFIER")
        }
    }
}
