import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthEngine
import HearthStore
import HearthTokens
import Hummingbird
import Testing

/// A service account registered in a harness's store, holding its private key as the JSON file's owner would.
struct TestServiceAccount {
    let key: ServiceAccountKey
    let privateKey: _RSA.Signing.PrivateKey

    static func register(in harness: Harness, project: String? = nil) async throws -> TestServiceAccount {
        let credential = try ServiceAccountCredential.generate(
            projectID: project ?? harness.projectID, tokenURI: "http://127.0.0.1:9099/oauth2/token", random: .system,
            now: harness.clock.authClock.now())
        try await harness.store.insertServiceAccountKey(credential.key)
        let pem = try #require(credential.json["private_key"]?.stringValue)
        return TestServiceAccount(key: credential.key, privateKey: try _RSA.Signing.PrivateKey(pemRepresentation: pem))
    }

    /// A JWT signed with this account's key, as google-auth and the Admin SDKs sign theirs.
    func sign(_ claims: [String: JSONValue], now: Date, lifetime: Int = 3600) throws -> String {
        var payload = claims
        let iat = now.secondsSince1970
        payload["iat"] = payload["iat"] ?? .number(Double(iat))
        payload["exp"] = payload["exp"] ?? .number(Double(iat + Int64(lifetime)))
        return try JWS.signRS256(payload: .object(payload), kid: key.keyID, key: privateKey)
    }

    func customToken(uid: String, claims: JSONValue? = nil, now: Date, lifetime: Int = 3600) throws -> String {
        var payload: [String: JSONValue] = [
            "iss": .string(key.clientEmail), "sub": .string(key.clientEmail),
            "aud": .string(CustomClaims.customTokenAudience), "uid": .string(uid),
        ]
        if let claims { payload["claims"] = claims }
        return try sign(payload, now: now, lifetime: lifetime)
    }

    /// An admin access token from the token endpoint, through the JWT-bearer grant.
    func accessToken(_ c: Client, now: Date) async throws -> String {
        let assertion = try sign(
            [
                "iss": .string(key.clientEmail), "aud": "http://127.0.0.1:9099/oauth2/token",
                "scope": "https://www.googleapis.com/auth/cloud-platform",
            ], now: now)
        let reply = try await c.send(
            "/oauth2/token", method: .post,
            body: ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"),
            key: nil, contentType: "application/x-www-form-urlencoded")
        #expect(reply.status == 200)
        return try #require(reply.string("access_token"))
    }
}

extension Client {
    func admin(_ path: String, _ body: JSONValue = [:], token: String, method: HTTPRequest.Method = .post)
        async throws -> Reply
    {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        return try await send(
            path, method: method, body: method == .get ? nil : ByteBuffer(string: body.jsonText), key: nil,
            headers: headers)
    }
}

@Suite("Admin authentication")
struct AdminAuthenticationTests {
    @Test func aServiceAccountExchangesAnAssertionForAnAccessTokenThatAdminRoutesAccept() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { (c: Client) async throws in
            let token = try await account.accessToken(c, now: h.clock.authClock.now())
            let created = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts", ["email": "ada@example.com"], token: token)
            #expect(created.status == 200)
            let uid = try #require(created.string("localId"))
            let found = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:lookup", ["localId": [.string(uid)]], token: token)
            #expect(found["users"]?[0]?["email"]?.stringValue == "ada@example.com")
        }
    }

    @Test func adminRoutesRefuseMissingForeignAndEndUserCredentials() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        let other = try await TestServiceAccount.register(in: h, project: "other-project")
        try await h.run { (c: Client) async throws in
            let batchGet = "/v1/projects/\(h.projectID)/accounts:batchGet"
            let none = try await c.send(batchGet, method: .get, key: nil)
            #expect(none.status == 401)
            #expect(none["error"]?["status"]?.stringValue == "UNAUTHENTICATED")

            let idToken = try #require(
                try await c.signUp(email: "u@example.com", password: "secret1").string("idToken"))
            #expect(try await c.admin(batchGet, token: idToken, method: .get).status == 401, "ID tokens are not admin")
            #expect(
                try await c.admin(batchGet, token: "owner", method: .get).status == 401, "owner only in emulator mode")

            let foreign = try await other.accessToken(c, now: h.clock.authClock.now())
            let denied = try await c.admin(batchGet, token: foreign, method: .get)
            #expect(denied.status == 403)
            #expect(denied["error"]?["status"]?.stringValue == "PERMISSION_DENIED")

            let token = try await account.accessToken(c, now: h.clock.authClock.now())
            #expect(try await c.admin(batchGet, token: token, method: .get).status == 200)
            _ = try await h.store.revokeServiceAccountKey(keyID: account.key.keyID, at: h.clock.authClock.now())
            #expect(
                try await c.admin(batchGet, token: token, method: .get).status == 401,
                "revoking the key ends its tokens")
        }
    }

    @Test func aSelfSignedJWTIsAcceptedAsJWTAccessWhenItIsExactlyRight() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { (c: Client) async throws in
            let now = h.clock.authClock.now()
            let email = JSONValue.string(account.key.clientEmail)
            let path = "/v1/projects/\(h.projectID)/accounts:batchGet"
            let toolkit: JSONValue = "https://identitytoolkit.googleapis.com/"
            let accepted = [
                try account.sign(["iss": email, "sub": email, "aud": toolkit], now: now),
                try account.sign(
                    ["iss": email, "sub": email, "scope": "openid https://www.googleapis.com/auth/cloud-platform"],
                    now: now),
            ]
            for token in accepted { #expect(try await c.admin(path, token: token, method: .get).status == 200) }
            let refused = [
                // Signed by the same key, but made for something else: a custom token an end user holds, a grant
                // assertion for the token endpoint, another service, an audience-less token without a scope.
                try account.customToken(uid: "end-user", now: now),
                try account.customToken(uid: "end-user", claims: ["admin": true], now: now),
                try account.sign(["iss": email, "sub": email, "aud": "http://127.0.0.1:9099/oauth2/token"], now: now),
                try account.sign(["iss": email, "sub": email, "aud": "https://hearth.example/"], now: now),
                try account.sign(["iss": email, "sub": email], now: now),
                try account.sign(["iss": email, "sub": email, "scope": "https://www.googleapis.com/auth/userinfo.email"], now: now),
                try account.sign(["iss": email, "sub": email, "aud": toolkit, "uid": "someone"], now: now),
                // Wrong subject, over an hour long, expired, not valid yet.
                try account.sign(["iss": email, "sub": "x@y", "aud": toolkit], now: now),
                try account.sign(["iss": email, "sub": email, "aud": toolkit], now: now, lifetime: 7200),
                try account.sign(["iss": email, "sub": email, "aud": toolkit], now: now.addingTimeInterval(-3700)),
                try account.sign(
                    ["iss": email, "sub": email, "aud": toolkit, "nbf": .number(now.timeIntervalSince1970 + 600)],
                    now: now),
            ]
            for token in refused { #expect(try await c.admin(path, token: token, method: .get).status == 401) }
        }
    }

    @Test func theTokenEndpointRefusesBadAssertionsInOAuthsShape() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { (c: Client) async throws in
            func grant(_ form: String) async throws -> Client.Reply {
                try await c.send(
                    "/oauth2/token", method: .post, body: ByteBuffer(string: form), key: nil,
                    contentType: "application/x-www-form-urlencoded")
            }
            let now = h.clock.authClock.now()
            let grantType = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
            let wrongIssuer = try account.sign(["iss": "someone@else", "aud": "http://h/oauth2/token"], now: now)
            let tooLong = try account.sign(
                ["iss": .string(account.key.clientEmail), "aud": "http://h/oauth2/token"], now: now, lifetime: 7200)
            let expired = try account.sign(
                ["iss": .string(account.key.clientEmail), "aud": "http://h/oauth2/token"],
                now: now.addingTimeInterval(-7200))
            for assertion in [wrongIssuer, tooLong, expired, "not-a-jwt"] {
                let reply = try await grant("\(grantType)&assertion=\(assertion)")
                #expect(reply.status == 400)
                #expect(reply.string("error") == "invalid_grant")
            }
            let unsupported = try await grant("grant_type=password&assertion=x")
            #expect(unsupported.string("error") == "unsupported_grant_type")
            #expect(try await grant("grant_type=x").string("error") == "invalid_request")
        }
    }
}

@Suite("Admin user management")
struct AdminUserTests {
    /// Runs `body` with an admin access token for the harness's project.
    static func withAdmin(_ h: Harness, _ body: @Sendable @escaping (Client, String) async throws -> Void) async throws
    {
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { (c: Client) async throws in
            try await body(c, try await account.accessToken(c, now: h.clock.authClock.now()))
        }
    }

    @Test func createsUsersWithTheirFieldsAndRefusesDuplicates() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token in
            let path = "/v1/projects/\(h.projectID)/accounts"
            let created = try await c.admin(
                path,
                [
                    "localId": "uid-1", "email": "Ada@Example.com", "password": "secret1", "displayName": "Ada",
                    "phoneNumber": "+16505550101", "emailVerified": true,
                ], token: token)
            #expect(created.status == 200)
            #expect(created.string("localId") == "uid-1")
            let stored = try #require(try await h.store.user(projectID: h.projectID, uid: "uid-1"))
            #expect(stored.email == "ada@example.com" && stored.emailVerified && stored.phoneNumber == "+16505550101")
            #expect(try await c.signIn("ada@example.com", "secret1").status == 200)

            #expect(try await c.admin(path, ["localId": "uid-1"], token: token).errorCode == "DUPLICATE_LOCAL_ID")
            #expect(try await c.admin(path, ["email": "ada@example.com"], token: token).errorCode == "EMAIL_EXISTS")
            #expect(
                try await c.admin(path, ["phoneNumber": "+16505550101"], token: token).errorCode
                    == "PHONE_NUMBER_EXISTS")
            #expect(try await c.admin(path, ["email": "nope"], token: token).errorCode == "INVALID_EMAIL")
            #expect(try await c.admin(path, ["password": "123"], token: token).errorCode == "WEAK_PASSWORD")
            #expect(
                try await c.admin(path, ["localId": .string(String(repeating: "x", count: 129))], token: token)
                    .errorCode == "INVALID_LOCAL_ID")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func customClaimsAreCheckedAndReachEveryLaterIDToken() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let uid = try #require(session.string("localId"))
            let update = "/v1/projects/\(h.projectID)/accounts:update"
            let set = try await c.admin(
                update, ["localId": .string(uid), "customAttributes": #"{"admin":true,"tier":2}"#], token: token)
            #expect(set.status == 200)
            #expect(
                try await c.admin(update, ["localId": .string(uid), "customAttributes": #"{"sub":"x"}"#], token: token)
                    .errorCode == "FORBIDDEN_CLAIM")
            #expect(
                try await c.admin(update, ["localId": .string(uid), "customAttributes": "[1]"], token: token).errorCode
                    == "INVALID_CLAIMS")
            let big = #"{"k":""# + String(repeating: "x", count: 1000) + #""}"#
            #expect(
                try await c.admin(update, ["localId": .string(uid), "customAttributes": .string(big)], token: token)
                    .errorCode == "CLAIMS_TOO_LARGE")

            // The refreshed token (same session) and a new sign-in both carry the claims.
            let refreshed = try await c.refresh(try #require(session.string("refreshToken")))
            #expect(try claims(of: refreshed.string("id_token"))["admin"] == .bool(true))
            let again = try await c.signIn("ada@example.com", "secret1")
            #expect(try claims(of: again.string("idToken"))["tier"] == .number(2))

            #expect(
                try await c.admin(update, ["localId": .string(uid), "customAttributes": "{}"], token: token).status
                    == 200)
            #expect(try claims(of: try await c.signIn("ada@example.com", "secret1").string("idToken"))["admin"] == nil)
        }
    }

    @Test func disablingRevokingAndDeletingTakeEffect() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let uid = try #require(session.string("localId"))
            let update = "/v1/projects/\(h.projectID)/accounts:update"

            h.clock.advance(2)
            let now = h.clock.authClock.now().secondsSince1970
            #expect(
                try await c.admin(update, ["localId": .string(uid), "validSince": .string(String(now))], token: token)
                    .status == 200)
            #expect(try await c.refresh(try #require(session.string("refreshToken"))).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.lookup(try #require(session.string("idToken"))).errorCode == "TOKEN_EXPIRED")

            #expect(
                try await c.admin(update, ["localId": .string(uid), "disableUser": true], token: token).status == 200)
            #expect(try await c.signIn("ada@example.com", "secret1").errorCode == "USER_DISABLED")
            #expect(
                try await c.admin(
                    update, ["localId": .string(uid), "disableUser": false, "password": "newpass1"], token: token
                ).status == 200)
            #expect(try await c.signIn("ada@example.com", "newpass1").status == 200)

            #expect(
                try await c.admin(update, ["localId": "missing", "displayName": "x"], token: token).errorCode
                    == "USER_NOT_FOUND")
            #expect(
                try await c.admin(
                    "/v1/projects/\(h.projectID)/accounts:delete", ["localId": .string(uid)], token: token
                ).status == 200)
            #expect(try await h.store.user(projectID: h.projectID, uid: uid) == nil)
            #expect(
                try await c.admin(
                    "/v1/projects/\(h.projectID)/accounts:delete", ["localId": .string(uid)], token: token
                ).errorCode == "USER_NOT_FOUND")
        }
    }

    @Test func listsUsersPageByPageAndLooksThemUpByAnyIdentifier() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token in
            for i in 0..<25 {
                _ = try await c.admin(
                    "/v1/projects/\(h.projectID)/accounts",
                    [
                        "localId": .string(String(format: "u%02d", i)), "email": .string("u\(i)@example.com"),
                        "phoneNumber": .string("+1650555\(String(format: "%04d", i))"),
                    ], token: token)
            }
            var seen: [String] = []
            var pageToken: String?
            repeat {
                var path = "/v1/projects/\(h.projectID)/accounts:batchGet?maxResults=10"
                if let pageToken { path += "&nextPageToken=\(pageToken)" }
                let page = try await c.admin(path, token: token, method: .get)
                #expect(page.status == 200)
                seen += (page["users"]?.arrayValue ?? []).compactMap { $0["localId"]?.stringValue }
                pageToken = page.string("nextPageToken")
            } while pageToken != nil
            #expect(seen == (0..<25).map { String(format: "u%02d", $0) })

            let found = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:lookup",
                [
                    "localId": ["u01", "nope"], "email": ["U2@Example.com"],
                    "phoneNumber": ["+16505550003", "+16505550001"],
                ],
                token: token)
            #expect(found["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["u01", "u02", "u03"])
            var linked = try #require(try await h.store.user(projectID: h.projectID, uid: "u04"))
            linked.providers = [ProviderUserInfo(providerID: "apple.com", rawID: "apple-sub-4")]
            try await h.store.updateUser(linked)
            let byIdentity = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:lookup",
                ["federatedUserId": [["providerId": "apple.com", "rawId": "apple-sub-4"]]], token: token)
            #expect(byIdentity["users"]?[0]?["localId"]?.stringValue == "u04")
            let none = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:lookup", ["localId": ["nope"]], token: token)
            #expect(none.status == 200 && none["users"] == nil)
        }
    }

    @Test func queriesCountPageAndMatchUsers() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { (c: Client, token: String) async throws in
            for i in 0..<7 {
                _ = try await c.admin(
                    "/v1/projects/\(h.projectID)/accounts",
                    ["localId": .string("q\(i)"), "email": .string("q\(i)@example.com")], token: token)
            }
            let path = "/v1/projects/\(h.projectID)/accounts:query"
            #expect(try await c.admin(path, ["returnUserInfo": false], token: token)["recordsCount"] == "7")
            let page = try await c.admin(path, ["limit": "3", "offset": "2"], token: token)
            #expect(page["userInfo"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } == ["q2", "q3", "q4"])
            let matched = try await c.admin(
                path, ["expression": [["email": "q5@example.com"], ["userId": "q1"]]], token: token)
            #expect(matched["recordsCount"] == "2")
            #expect(try await c.admin(path, ["sortBy": "NAME"], token: token).errorCode == "INVALID_ARGUMENT")
        }
    }

    @Test func batchDeleteKeepsEnabledAccountsUnlessForced() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token in
            for uid in ["a", "b"] {
                _ = try await c.admin("/v1/projects/\(h.projectID)/accounts", ["localId": .string(uid)], token: token)
            }
            let path = "/v1/projects/\(h.projectID)/accounts:batchDelete"
            let kept = try await c.admin(path, ["localIds": ["a", "missing"]], token: token)
            #expect(kept["errors"]?[0]?["localId"]?.stringValue == "a")
            #expect(kept["errors"]?[0]?["message"]?.stringValue?.hasPrefix("NOT_DISABLED") == true)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 2)
            let forced = try await c.admin(path, ["localIds": ["a", "b"], "force": true], token: token)
            #expect(forced.status == 200 && forced["errors"] == nil)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
            let tooMany = JSONValue.array((0...1000).map { .string("u\($0)") })
            #expect(
                try await c.admin(path, ["localIds": tooMany], token: token).errorCode == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        }
    }
}

@Suite("Identity provider configs through the admin API")
struct IdentityProviderConfigTests {
    @Test func oidcProvidersAreCreatedReadUpdatedAndDeleted() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let base = "/v2/projects/\(h.projectID)/oauthIdpConfigs"
            let created = try await c.admin(
                "\(base)?oauthIdpConfigId=oidc.corp",
                [
                    "clientId": "hearth-web", "issuer": "https://id.corp.example", "displayName": "Corp",
                    "enabled": true,
                ],
                token: token)
            #expect(created.status == 200)
            #expect(created.string("name") == "projects/\(h.projectID)/oauthIdpConfigs/oidc.corp")
            #expect(created.string("displayName") == "Corp")
            #expect(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.corp"]?.clientIds == ["hearth-web"])
            let again = try await c.admin(
                "\(base)?oauthIdpConfigId=oidc.corp", ["clientId": "x", "issuer": "https://x"], token: token)
            #expect(again.errorCode == "CONFIGURATION_EXISTS")

            let updated = try await c.admin(
                "\(base)/oidc.corp?updateMask=clientId", ["clientId": "hearth-ios", "issuer": "https://ignored"],
                token: token, method: .patch)
            #expect(updated.string("clientId") == "hearth-ios")
            #expect(updated.string("issuer") == "https://id.corp.example", "fields outside the mask are kept")
            #expect(try await c.admin(base, token: token, method: .get)["oauthIdpConfigs"]?.arrayValue?.count == 1)

            #expect(try await c.admin("\(base)/oidc.corp", token: token, method: .delete).status == 200)
            let gone = try await c.admin("\(base)/oidc.corp", token: token, method: .get)
            #expect(gone.status == 404 && gone.errorCode == "CONFIGURATION_NOT_FOUND")
            #expect(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.corp"] == nil)

            #expect(
                try await c.admin("\(base)?oauthIdpConfigId=oidc.x", ["clientId": "a"], token: token).errorCode
                    == "MISSING_ISSUER")
            #expect(
                try await c.admin(
                    "\(base)?oauthIdpConfigId=corp", ["clientId": "a", "issuer": "https://x"], token: token
                )
                .errorCode == "INVALID_PROVIDER_ID")
        }
    }

    @Test func builtInProvidersOverrideAndDisableTheConfigFile() async throws {
        let h = try await Harness {
            $0.federation.apple = AppleSettings(clientIds: ["com.example.app"])
        }
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let base = "/v2/projects/\(h.projectID)/defaultSupportedIdpConfigs"
            let google = try await c.admin(
                "\(base)?idpId=google.com", ["clientId": "123.apps.googleusercontent.com", "enabled": true],
                token: token)
            #expect(google.string("clientId") == "123.apps.googleusercontent.com")
            #expect(
                h.engine.projects.config(h.projectID)?.federation.google?.clientIds == [
                    "123.apps.googleusercontent.com"
                ])
            let apple = try await c.admin("\(base)/apple.com", token: token, method: .get)
            #expect(apple["appleSignInConfig"]?["bundleIds"] == ["com.example.app"])
            #expect(try await c.admin("\(base)/apple.com", token: token, method: .delete).status == 200)
            #expect(h.engine.projects.config(h.projectID)?.federation.apple == nil, "off, though the file sets it up")
            let listed = try await c.admin(base, token: token, method: .get)
            #expect(
                listed["defaultSupportedIdpConfigs"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
                    == ["projects/\(h.projectID)/defaultSupportedIdpConfigs/google.com"])
            #expect(try await c.send(base, method: .get).status == 401, "admins only")
        }
    }

    @Test func browserSignInProvidersTakeTheirClientSecret() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let builtIn = "/v2/projects/\(h.projectID)/defaultSupportedIdpConfigs"
            #expect(
                try await c.admin("\(builtIn)?idpId=github.com", ["clientId": "gh"], token: token).errorCode
                    == "INVALID_CONFIG", "GitHub signs in through the browser only and needs the secret")
            let github = try await c.admin(
                "\(builtIn)?idpId=github.com", ["clientId": "gh", "clientSecret": "gh-secret"], token: token)
            #expect(github.status == 200, "\(github.json)")
            #expect(github.string("clientSecret") == "gh-secret")
            #expect(h.engine.projects.config(h.projectID)?.federation.oauth["github.com"]?.clientSecret == "gh-secret")
            let listed = try await c.admin(builtIn, token: token, method: .get)
            #expect(
                listed["defaultSupportedIdpConfigs"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
                    == ["projects/\(h.projectID)/defaultSupportedIdpConfigs/github.com"])

            let twitter = try await c.admin(
                "\(builtIn)?idpId=twitter.com", ["clientId": "tw-key", "clientSecret": "tw-secret"], token: token)
            #expect(twitter.status == 200, "\(twitter.json)")
            #expect(h.engine.projects.config(h.projectID)?.federation.twitter?.consumerKey == "tw-key")
            #expect(try await c.admin("\(builtIn)/twitter.com", token: token, method: .delete).status == 200)
            #expect(h.engine.projects.config(h.projectID)?.federation.twitter == nil)

            let oidc = "/v2/projects/\(h.projectID)/oauthIdpConfigs"
            #expect(
                try await c.admin(
                    "\(oidc)?oauthIdpConfigId=oidc.code",
                    ["clientId": "web", "issuer": "https://id.example", "responseType": ["code": true]], token: token
                ).errorCode == "INVALID_CONFIG")
            let code = try await c.admin(
                "\(oidc)?oauthIdpConfigId=oidc.code",
                [
                    "clientId": "web", "issuer": "https://id.example", "clientSecret": "s3cret",
                    "responseType": ["code": true, "idToken": false],
                ], token: token)
            #expect(code.status == 200, "\(code.json)")
            #expect(code["responseType"]?["code"] == true)
            #expect(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.code"]?.clientSecret == "s3cret")
            let tokensOnly = try await c.admin(
                "\(oidc)/oidc.code?updateMask=responseType", ["responseType": ["idToken": true]], token: token,
                method: .patch)
            #expect(tokensOnly.status == 200)
            #expect(tokensOnly["responseType"]?["code"] != true)
            #expect(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.code"]?.clientSecret == nil)
        }
    }
}
