import Foundation
import HTTPTypes
import HearthCore
import Hummingbird
import Testing

/// Behaviours the Firebase Auth Emulator's spec files and the Admin SDKs' integration tests rely on.
@Suite("Firebase parity")
struct ParityTests {
    @Test func aSwitchedOffOIDCConfigKeepsEveryFieldUntilDeleted() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let base = "/v2/projects/\(h.projectID)/oauthIdpConfigs"
            let created = try await c.admin(
                "\(base)?oauthIdpConfigId=oidc.code",
                [
                    "clientId": "web", "issuer": "https://id.example", "clientSecret": "shh",
                    "responseType": ["code": true, "idToken": false], "enabled": true,
                ], token: token)
            #expect(created.string("clientSecret") == "shh" && created["responseType"]?["code"] == .bool(true))
            let off = try await c.admin(
                "\(base)/oidc.code?updateMask=enabled", ["enabled": false], token: token, method: .patch)
            #expect(off.status == 200 && off["enabled"] == .bool(false))
            let read = try await c.admin("\(base)/oidc.code", token: token, method: .get)
            #expect(read["enabled"] == .bool(false) && read.string("clientSecret") == "shh")
            #expect(read.string("issuer") == "https://id.example")
            #expect(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.code"] == nil, "off means off")
            let on = try await c.admin(
                "\(base)/oidc.code?updateMask=enabled", ["enabled": true], token: token, method: .patch)
            #expect(on["enabled"] == .bool(true) && on.string("clientId") == "web")
            #expect(try await c.admin("\(base)/oidc.code", token: token, method: .delete).status == 200)
            #expect(try await c.admin("\(base)/oidc.code", token: token, method: .get).errorCode == "CONFIGURATION_NOT_FOUND")
        }
    }

    @Test func sessionCookieKeysAreWhereTheAdminSDKsLook() async throws {
        let h = try await Harness()
        try await h.run { c in
            for path in [
                "/identitytoolkit/v3/relyingparty/publicKeys", "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys",
            ] {
                let keys = try await c.send(path, method: .get, key: nil)
                #expect(keys.status == 200)
                #expect(keys.json.objectValue?.values.allSatisfy { $0.stringValue?.hasPrefix("-----BEGIN CERTIFICATE") ?? false } == true)
            }
        }
    }

    @Test func everyOptionsRequestIsAPreflight() async throws {
        let h = try await Harness()
        try await h.run { c in
            #expect(try await c.send("/v1/accounts:signUp", method: .options, key: nil).status == 204)
            #expect(try await c.send("/no/such/path", method: .options, key: nil).status == 204)
            let preflight = try await c.send(
                "/v1/accounts:lookup", method: .options, key: nil,
                headers: [.origin: "http://localhost:3000", .accessControlRequestMethod: "POST"])
            #expect(preflight.status == 204 && preflight.headers[.accessControlAllowOrigin] == "http://localhost:3000")
        }
    }

    @Test func theEmulatorAnswersAsTheFirebaseEmulatorDoes() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { c in
            let root = try await c.send("/", method: .get, key: nil)
            #expect(root["authEmulator"]?["ready"] == .bool(true))
            // A project the emulator serves unconfigured has enumeration protection off, so errors are specific.
            let unknown = try await c.post(
                "/v1/projects/any-project/accounts:signInWithPassword",
                ["email": "nobody@example.com", "password": "whatever-1"])
            #expect(unknown.errorCode == "EMAIL_NOT_FOUND")
            for owner in ["owner", "OWNER", "ya29.some-google-access-token"] {
                let listed = try await c.send(
                    "/v1/projects/any-project/accounts:batchGet", method: .get, key: nil,
                    headers: [.authorization: "Bearer \(owner)"])
                #expect(listed.status == 200, "\(owner)")
            }
        }
    }

    @Test func adminsWritePhoneNumbersAsLenientlyAsFirebase() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            // The Admin SDKs' own tests use numbers like this one, which libphonenumber's US plan refuses.
            let created = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts", ["phoneNumber": "+11234567890"], token: token)
            #expect(created.status == 200, "\(created.json)")
        }
    }
}

extension ParityTests {
    /// The Admin SDKs' `update_user(provider_to_link=…)`: an identity linked by an admin, with Firebase's errors; a
    /// client that sends the same field links nothing.
    @Test func adminsLinkAProviderIdentityByRawID() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let path = "/v1/projects/\(h.projectID)/accounts:update"
            let user = try await c.signUp(email: "link@example.com", password: "correct horse")
            let uid = try #require(user.string("localId"))
            let link: JSONValue = [
                "providerId": "google.com", "rawId": "google-42", "email": "g@example.com", "displayName": "G",
            ]
            // A client cannot claim a provider identity by naming it.
            let byClient = try await c.post(
                "/v1/accounts:update", ["idToken": .string(try #require(user.string("idToken"))), "linkProviderUserInfo": link])
            #expect(byClient.status == 200)
            #expect(try await h.store.user(projectID: h.projectID, providerID: "google.com", rawID: "google-42") == nil)

            let linked = try await c.admin(path, ["localId": .string(uid), "linkProviderUserInfo": link], token: token)
            #expect(linked.status == 200, "\(linked.json)")
            let stored = try #require(try await h.store.user(projectID: h.projectID, providerID: "google.com", rawID: "google-42"))
            #expect(stored.uid == uid)
            #expect(stored.providers.first { $0.providerID == "google.com" }?.email == "g@example.com")

            let missingRaw = try await c.admin(
                path, ["localId": .string(uid), "linkProviderUserInfo": ["providerId": "google.com"]], token: token)
            #expect(missingRaw.errorCode == "MISSING_RAW_ID")
            let missingProvider = try await c.admin(
                path, ["localId": .string(uid), "linkProviderUserInfo": ["rawId": "x"]], token: token)
            #expect(missingProvider.errorCode == "MISSING_PROVIDER_ID")
            let password = try await c.admin(
                path, ["localId": .string(uid), "linkProviderUserInfo": ["providerId": "password", "rawId": "x"]],
                token: token)
            #expect(password.errorCode == "INVALID_PROVIDER_ID")
            // One identity, one account.
            let other = try #require(try await c.signUp().string("localId"))
            let taken = try await c.admin(path, ["localId": .string(other), "linkProviderUserInfo": link], token: token)
            #expect(taken.errorCode == "FEDERATED_USER_ID_ALREADY_LINKED")
        }
    }

    /// createAuthUri (`fetchSignInMethodsForEmail`): an address a provider gave counts as the account's, and e-mail
    /// links are the `password` provider in `allProviders` but `emailLink` in `signinMethods`.
    @Test func createAuthUriFindsAnAddressAProviderGave() async throws {
        let h = try await Harness(configure: { $0.emailEnumerationProtection = false })
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let uid = try #require(
                try await c.signUp(email: "ada@example.com", password: "correct horse").string("localId"))
            let link: JSONValue = ["providerId": "google.com", "rawId": "g-1", "email": "ada@gmail.com"]
            let linked = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(uid), "linkProviderUserInfo": link],
                token: token)
            #expect(linked.status == 200, "\(linked.json)")
            var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            user.emailLinkSignIn = true
            try await h.store.updateUser(user)
            for address in ["ada@example.com", "ADA@gmail.com"] {
                let r = try await c.post(
                    "/v1/accounts:createAuthUri", ["identifier": .string(address), "continueUri": "http://localhost/"])
                #expect(r["registered"] == true, "\(address)")
                #expect(r["allProviders"] == ["password", "google.com"], "\(address)")
                #expect(r["signinMethods"] == ["password", "emailLink", "google.com"], "\(address)")
            }
            let unknown = try await c.post(
                "/v1/accounts:createAuthUri", ["identifier": "nobody@example.com", "continueUri": "http://localhost/"])
            #expect(unknown["registered"] == false && unknown["allProviders"] == [])
        }
    }

    /// batchCreate reports, entry by entry, what Firebase refuses, and imports the rest.
    @Test func importReportsTheEntriesFirebaseRefuses() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let factor: JSONValue = [["phoneInfo": "+16505550101"]]
            let r = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:batchCreate",
                [
                    "users": [
                        ["localId": "t0", "tenantId": "another-tenant"],
                        ["localId": "t1", "providerUserInfo": [["providerId": "google.com"]]],
                        ["localId": "t2", "providerUserInfo": [["federatedId": "fed-1"]]],
                        ["localId": "t3", "mfaInfo": factor],
                        ["localId": "t4", "email": "t4@example.com", "mfaInfo": factor],
                        ["localId": "t5", "email": "t5@example.com", "emailVerified": true, "mfaInfo": factor],
                    ]
                ], token: token)
            #expect(r.status == 200, "\(r.json)")
            let errors = (r["error"]?.arrayValue ?? []).compactMap { e in
                e["index"]?.doubleValue.map { (Int($0), e["message"]?.stringValue ?? "") }
            }
            #expect(errors.map(\.0) == [0, 1, 2, 3, 4])
            #expect(errors.first?.1 == "Tenant id in userInfo does not match the tenant id in request.")
            #expect(errors.dropFirst().first?.1 == "federatedId or (providerId & rawId) is required")
            #expect(errors.dropFirst(3).first?.1 == "Second factor account requires email to be presented.")
            #expect(errors.dropFirst(4).first?.1 == "Second factor account requires email to be verified.")
            #expect(try await h.store.user(projectID: h.projectID, uid: "t1") == nil)
            #expect(try await h.store.user(projectID: h.projectID, uid: "t5")?.mfaEnrollments.count == 1)
        }
    }

    /// A client's `validSince` signs the account out everywhere, this session included, and answers a fresh one.
    @Test func aClientsValidSinceEndsEverySessionAndAnswersANewOne() async throws {
        let h = try await Harness()
        try await h.run { c in
            let first = try await c.signUp(email: "out@example.com", password: "correct horse")
            let second = try await c.signIn("out@example.com", "correct horse")
            h.clock.advance(2)
            let answer = try await c.post(
                "/v1/accounts:update", ["idToken": .string(try #require(first.string("idToken"))), "validSince": "0"])
            #expect(answer.status == 200)
            let fresh = try #require(answer.string("idToken"))
            for old in [first, second] {
                let lookup = try await c.post("/v1/accounts:lookup", ["idToken": .string(try #require(old.string("idToken")))])
                #expect(lookup.errorCode == "TOKEN_EXPIRED")
                let refresh = try await c.post(
                    "/v1/token", ["grantType": "refresh_token", "refreshToken": .string(try #require(old.string("refreshToken")))])
                #expect(refresh.status == 400)
            }
            #expect(try await c.post("/v1/accounts:lookup", ["idToken": .string(fresh)]).status == 200)
            // A value of another type is refused and ends nothing.
            let wrongType = try await c.post(
                "/v1/accounts:update", ["idToken": .string(fresh), "validSince": ["not": "a number"]])
            #expect(wrongType.status == 400 && wrongType.errorCode?.hasPrefix("Invalid JSON payload") == true)
            #expect(try await c.post("/v1/accounts:lookup", ["idToken": .string(fresh)]).status == 200)
        }
    }
}
