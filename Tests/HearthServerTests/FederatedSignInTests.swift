import Foundation
import HearthCore
import HearthEngine
import HearthProviders
import Hummingbird
import Testing

/// `accounts:signInWithIdp` against a real local identity provider signing real RS256/ES256 tokens.
@Suite("Federated sign-in")
struct FederatedSignInTests {
    static let appleClient = "com.example.hearth"
    static let googleClient = "123-ios.apps.googleusercontent.com"
    static let facebookApp = "4242"
    static let oidcClient = "hearth-oidc"

    /// A test IdP with one RSA and one P-256 key, and a Hearth whose project trusts it for every provider.
    static func withProviders(
        timeout: Duration = .seconds(60), emulator: Bool = false,
        configure: @escaping @Sendable (inout FederationSettings) -> Void = { _ in },
        _ body: @Sendable (TestIdentityProvider, Harness, Client) async throws -> Void
    ) async throws {
        let idp = TestIdentityProvider(keys: [.rsa("rsa-1"), .p256("ec-1")])
        try await idp.serve { base in
            // A live clock (real time plus what a test advances): the IdP stamps its tokens with `Date()`, and a frozen
            // clock more than a minute behind them, as the whole suite's load can make it, reads them as not yet issued.
            let h = try await Harness(emulator: emulator, providerTimeout: timeout, liveClock: true) { project in
                var apple = AppleSettings(clientIds: [appleClient, "com.example.hearth.web"])
                apple.keysUrl = base + "/apple/keys"
                apple.tokenUrl = base + "/apple/token"
                apple.revokeUrl = base + "/apple/revoke"
                apple.teamId = TestIdentityProvider.appleTeam
                apple.keyId = "APPLEKEY01"
                apple.privateKey = idp.appleTeamKey.pemRepresentation
                var google = GoogleSettings(clientIds: [googleClient])
                google.keysUrl = base + "/google/certs"
                var facebook = FacebookSettings(appId: facebookApp, appSecret: idp.appSecret)
                facebook.graphUrl = base + "/graph"
                facebook.keysUrl = base + "/facebook/jwks"
                var settings = FederationSettings(
                    apple: apple, google: google, facebook: facebook,
                    oidc: ["oidc.corp": OIDCSettings(issuer: base + "/oidc", clientIds: [oidcClient])])
                configure(&settings)
                project.federation = settings
            }
            try await h.run { c in try await body(idp, h, c) }
        }
    }

    // MARK: Token and request builders

    static func key(_ idp: TestIdentityProvider, _ kid: String) throws -> TestIdentityProvider.SigningKey {
        try #require(idp.published.withLock { $0.first { $0.kid == kid } })
    }

    static func appleToken(
        _ idp: TestIdentityProvider, _ h: Harness, sub: String = "001234.apple", rawNonce: String? = "raw-nonce-1",
        email: String? = "ada@privaterelay.appleid.com", verified: JSONValue = "true", aud: String = appleClient,
        iss: String = "https://appleid.apple.com", expiresIn: Double = 600, kid: String = "rsa-1",
        headerAlg: String? = nil
    ) throws -> String {
        let now = h.clock.authClock.now().timeIntervalSince1970
        var claims: [String: JSONValue] = [
            "iss": .string(iss), "aud": .string(aud), "sub": .string(sub), "iat": .number(now.rounded(.down)),
            "exp": .number((now + expiresIn).rounded(.down)),
        ]
        if let rawNonce { claims["nonce"] = .string(NonceRule.hash(rawNonce)) }
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = verified
            // Apple sends these as strings.
            claims["is_private_email"] = email.hasSuffix("@privaterelay.appleid.com") ? "true" : "false"
        }
        return try key(idp, kid).sign(claims, alg: headerAlg)
    }

    static func oidcToken(
        _ idp: TestIdentityProvider, _ h: Harness, iss: String, aud: String, sub: String, kid: String = "ec-1",
        extra: [String: JSONValue] = [:]
    ) throws -> String {
        let now = h.clock.authClock.now().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(iss), "aud": .string(aud), "sub": .string(sub), "iat": .number(now),
            "exp": .number(now + 3600),
        ]
        for (k, v) in extra { claims[k] = v }
        return try key(idp, kid).sign(claims)
    }

    static func form(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    static func signInWithIdp(
        _ c: Client, provider: String = "apple.com", idToken: String? = nil, accessToken: String? = nil,
        nonce: String? = nil, user: JSONValue? = nil, extra: [String: JSONValue] = [:],
        path: String = "/v1/accounts:signInWithIdp"
    ) async throws -> Client.Reply {
        var post = [("providerId", provider)]
        if let idToken { post.append(("id_token", idToken)) }
        if let accessToken { post.append(("access_token", accessToken)) }
        if let nonce { post.append(("nonce", nonce)) }
        if let user { post.append(("user", user.jsonText)) }
        var body: [String: JSONValue] = [
            "postBody": .string(form(post)), "requestUri": "http://localhost", "returnSecureToken": true,
        ]
        for (k, v) in extra { body[k] = v }
        return try await c.post(path, .object(body))
    }

    static let adaName: JSONValue = ["name": ["firstName": "Ada", "lastName": "Lovelace"]]

    // MARK: Apple

    @Test func appleSignInCreatesTheUserWithTheFirstLoginName() async throws {
        try await Self.withProviders { idp, h, c in
            let token = try Self.appleToken(idp, h)
            let r = try await Self.signInWithIdp(c, idToken: token, nonce: "raw-nonce-1", user: Self.adaName)
            #expect(r.status == 200)
            #expect(r["isNewUser"] == true)
            #expect(r.string("providerId") == "apple.com")
            #expect(r.string("federatedId") == "001234.apple")
            #expect(r.string("email") == "ada@privaterelay.appleid.com")
            #expect(r["emailVerified"] == true)
            #expect(r.string("displayName") == "Ada Lovelace")
            #expect(r.string("firstName") == "Ada")
            #expect(r.string("lastName") == "Lovelace")
            let raw = try JSONValue(parsing: try #require(r.string("rawUserInfo")))
            #expect(raw["is_private_email"] == "true")
            let idClaims = try claims(of: r.string("idToken"))
            #expect(idClaims["firebase"]?["sign_in_provider"] == "apple.com")
            #expect(idClaims["firebase"]?["identities"]?["apple.com"] == ["001234.apple"])
            #expect(idClaims["name"] == "Ada Lovelace")
            #expect(idClaims["email_verified"] == true)

            let stored = try #require(
                try await h.store.user(projectID: h.projectID, providerID: "apple.com", rawID: "001234.apple"))
            #expect(stored.uid == r.string("localId"))
            #expect(stored.displayName == "Ada Lovelace")
            #expect(stored.providers.first?.displayName == "Ada Lovelace")
            #expect(stored.providers.first?.isPrivateEmail == true)

            // Later sign-ins carry no name (Apple sends it once); the stored one stays.
            h.clock.advance(5)
            let again = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "raw-nonce-2"), nonce: "raw-nonce-2")
            #expect(again.status == 200)
            #expect(again["isNewUser"] == false)
            #expect(again.string("localId") == stored.uid)
            let after = try #require(try await h.store.user(projectID: h.projectID, uid: stored.uid))
            #expect(after.displayName == "Ada Lovelace")
            #expect(after.providers.first?.displayName == "Ada Lovelace")
            #expect(try claims(of: again.string("idToken"))["name"] == "Ada Lovelace")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func theV3VerifyAssertionPathAndBothAppleIssuersWork() async throws {
        try await Self.withProviders { idp, h, c in
            let token = try Self.appleToken(idp, h, aud: "com.example.hearth.web", iss: "https://account.apple.com")
            let r = try await Self.signInWithIdp(
                c, idToken: token, nonce: "raw-nonce-1",
                path: "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyAssertion")
            #expect(r.status == 200)
            #expect(r.string("kind") == "identitytoolkit#VerifyAssertionResponse")
            #expect(r.string("idToken") != nil)
        }
    }

    @Test func theNonceMustBeTheHashOfTheRawNonceAndIsUsedOnce() async throws {
        try await Self.withProviders { idp, h, c in
            let token = try Self.appleToken(idp, h)
            let missing = try await Self.signInWithIdp(c, idToken: token)
            #expect(missing.status == 400)
            #expect(missing.errorCode == "MISSING_OR_INVALID_NONCE")
            let wrong = try await Self.signInWithIdp(c, idToken: token, nonce: "another-nonce")
            #expect(wrong.errorCode == "MISSING_OR_INVALID_NONCE")
            // A nonce sent for a token that carries none is refused as well.
            let unhashedToken = try Self.appleToken(idp, h, rawNonce: nil)
            let unexpected = try await Self.signInWithIdp(c, idToken: unhashedToken, nonce: "raw-nonce-1")
            #expect(unexpected.errorCode == "MISSING_OR_INVALID_NONCE")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)

            let first = try await Self.signInWithIdp(c, idToken: token, nonce: "raw-nonce-1")
            #expect(first.status == 200)
            let replay = try await Self.signInWithIdp(c, idToken: token, nonce: "raw-nonce-1")
            #expect(replay.status == 400)
            #expect(replay.errorCode == "MISSING_OR_INVALID_NONCE")
        }
    }

    @Test func forgedOrMisaddressedTokensAreRefused() async throws {
        try await Self.withProviders { idp, h, c in
            let impostor = TestIdentityProvider.SigningKey.rsa("rsa-1", slot: 1)
            let now = h.clock.authClock.now().timeIntervalSince1970.rounded(.down)
            let forged = try impostor.sign([
                "iss": "https://appleid.apple.com", "aud": .string(Self.appleClient), "sub": "001234.apple",
                "iat": .number(now), "exp": .number(now + 600), "nonce": .string(NonceRule.hash("n")),
            ])
            let cases: [(String, String)] = [
                ("bad signature", forged),
                ("wrong aud", try Self.appleToken(idp, h, rawNonce: "n", aud: "com.attacker.app")),
                ("wrong iss", try Self.appleToken(idp, h, rawNonce: "n", iss: "https://appleid.apple.com.evil")),
                ("expired", try Self.appleToken(idp, h, rawNonce: "n", expiresIn: -120)),
                ("alg none", try Self.appleToken(idp, h, rawNonce: "n", headerAlg: "none")),
                ("HS256 with a public key", try Self.appleToken(idp, h, rawNonce: "n", headerAlg: "HS256")),
                (
                    "RS256 header on an EC key",
                    try Self.appleToken(idp, h, rawNonce: "n", kid: "ec-1", headerAlg: "RS256")
                ),
            ]
            for (name, token) in cases {
                let r = try await Self.signInWithIdp(c, idToken: token, nonce: "n")
                #expect(r.status == 400, "\(name)")
                #expect(r.errorCode == "INVALID_IDP_RESPONSE", "\(name)")
            }
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }

    // MARK: Key cache

    @Test func anUnknownKidRefetchesOnceThenWaitsForTheCooldown() async throws {
        try await Self.withProviders { idp, h, c in
            let first = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h, rawNonce: "a"), nonce: "a")
            #expect(first.status == 200)
            #expect(idp.fetches("/apple/keys") == 1)

            // The provider rotates: a token under the new kid makes Hearth refetch (outside the cooldown).
            let rotated = TestIdentityProvider.SigningKey.rsa("rsa-2", slot: 2)
            idp.published.withLock { $0.append(rotated) }
            h.clock.advance(RemoteKeySet.unknownKidCooldown + 1)
            let second = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "b", kid: "rsa-2"), nonce: "b")
            #expect(second.status == 200)
            #expect(idp.fetches("/apple/keys") == 2)

            // Unknown kids right after a fetch do not reach the provider again.
            let stranger = TestIdentityProvider.SigningKey.rsa("rsa-3", slot: 3)
            let now = h.clock.authClock.now().timeIntervalSince1970.rounded(.down)
            let token = try stranger.sign([
                "iss": "https://appleid.apple.com", "aud": .string(Self.appleClient), "sub": "x", "iat": .number(now),
                "exp": .number(now + 600), "nonce": .string(NonceRule.hash("c")),
            ])
            for _ in 0..<3 {
                let r = try await Self.signInWithIdp(c, idToken: token, nonce: "c")
                #expect(r.errorCode == "INVALID_IDP_RESPONSE")
            }
            #expect(idp.fetches("/apple/keys") == 2)
        }
    }

    @Test func theLastGoodKeysServeWhileTheProviderIsDown() async throws {
        try await Self.withProviders { idp, h, c in
            idp.maxAge.withLock { $0 = 300 }
            let first = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h, rawNonce: "a"), nonce: "a")
            #expect(first.status == 200)
            idp.failing.withLock { $0 = true }
            h.clock.advance(301)
            let second = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "b"), nonce: "b")
            #expect(second.status == 200)
            #expect(idp.fetches("/apple/keys") == 2)
        }
    }

    @Test func aProviderThatIsDownOrSlowIsAnIdPErrorNotAHang() async throws {
        try await Self.withProviders(timeout: .seconds(1)) { idp, h, c in
            idp.failing.withLock { $0 = true }
            let down = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h, rawNonce: "a"), nonce: "a")
            #expect(down.status == 400)
            #expect(down.errorCode == "INVALID_IDP_RESPONSE")

            idp.failing.withLock { $0 = false }
            idp.delay.withLock { $0 = .seconds(30) }
            let started = ContinuousClock.now
            let slow = try await Self.signInWithIdp(
                c, provider: "google.com",
                idToken: try Self.oidcToken(
                    idp, h, iss: "https://accounts.google.com", aud: Self.googleClient, sub: "g-1", kid: "rsa-1"))
            #expect(slow.status == 400)
            #expect(slow.errorCode == "INVALID_IDP_RESPONSE")
            // Well before the provider would have answered (generous: the suite runs tests in parallel).
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }

    // MARK: Google, Facebook, OIDC

    @Test func googleIDTokensInBothIssuerSpellingsAndTheHostedDomain() async throws {
        try await Self.withProviders(configure: { $0.google?.hostedDomain = "example.com" }) { idp, h, c in
            let profile: [String: JSONValue] = [
                "email": "Grace@Example.com", "email_verified": true, "name": "Grace Hopper", "hd": "example.com",
                "picture": "https://example.com/grace.png",
            ]
            let r = try await Self.signInWithIdp(
                c, provider: "google.com",
                idToken: try Self.oidcToken(
                    idp, h, iss: "accounts.google.com", aud: Self.googleClient, sub: "g-1", kid: "rsa-1", extra: profile
                ))
            #expect(r.status == 200)
            #expect(r.string("federatedId") == "https://accounts.google.com/g-1")
            #expect(r.string("email") == "grace@example.com")
            #expect(r.string("photoUrl") == "https://example.com/grace.png")
            #expect(try claims(of: r.string("idToken"))["firebase"]?["identities"]?["google.com"] == ["g-1"])

            var outsider = profile
            outsider["hd"] = "gmail.com"
            let refused = try await Self.signInWithIdp(
                c, provider: "google.com",
                idToken: try Self.oidcToken(
                    idp, h, iss: "https://accounts.google.com", aud: Self.googleClient, sub: "g-2", kid: "rsa-1",
                    extra: outsider))
            #expect(refused.errorCode == "INVALID_IDP_RESPONSE")

            // When the app sends its raw nonce, the token's must be its hash.
            let nonced = try Self.oidcToken(
                idp, h, iss: "https://accounts.google.com", aud: Self.googleClient, sub: "g-1", kid: "rsa-1",
                extra: profile.merging(["nonce": .string(NonceRule.hash("g-nonce"))]) { $1 })
            let mismatched = try await Self.signInWithIdp(c, provider: "google.com", idToken: nonced, nonce: "other")
            #expect(mismatched.errorCode == "MISSING_OR_INVALID_NONCE")
            let matched = try await Self.signInWithIdp(c, provider: "google.com", idToken: nonced, nonce: "g-nonce")
            #expect(matched.status == 200)
            #expect(matched.string("localId") == r.string("localId"))
        }
    }

    @Test func facebookLimitedLoginIsAnES256TokenWithTheNonceRule() async throws {
        try await Self.withProviders { idp, h, c in
            let token = try Self.oidcToken(
                idp, h, iss: "https://www.facebook.com", aud: Self.facebookApp, sub: "fb-1",
                extra: [
                    "nonce": .string(NonceRule.hash("fb-nonce")), "name": "Kim Minji", "email": "minji@example.com",
                ])
            let noNonce = try await Self.signInWithIdp(c, provider: "facebook.com", idToken: token)
            #expect(noNonce.errorCode == "MISSING_OR_INVALID_NONCE")
            let r = try await Self.signInWithIdp(c, provider: "facebook.com", idToken: token, nonce: "fb-nonce")
            #expect(r.status == 200)
            #expect(r.string("displayName") == "Kim Minji")
            // Facebook does not verify e-mail addresses.
            #expect(r["emailVerified"] == false)
            #expect(try claims(of: r.string("idToken"))["firebase"]?["sign_in_provider"] == "facebook.com")
        }
    }

    @Test func facebookClassicAccessTokensAreCheckedWithTheGraphAPI() async throws {
        try await Self.withProviders { idp, h, c in
            idp.graphUsers.withLock {
                $0["EAAB-good"] = .init(
                    appID: Self.facebookApp, userID: "10001",
                    profile: ["id": "10001", "name": "Park Jisoo", "email": "jisoo@example.com"])
                $0["EAAB-other-app"] = .init(appID: "9999", userID: "10002", profile: ["id": "10002"])
            }
            let r = try await Self.signInWithIdp(c, provider: "facebook.com", accessToken: "EAAB-good")
            #expect(r.status == 200)
            #expect(r.string("federatedId") == "10001")
            #expect(r.string("displayName") == "Park Jisoo")
            #expect(idp.fetches("/graph/me") == 1)

            let foreign = try await Self.signInWithIdp(c, provider: "facebook.com", accessToken: "EAAB-other-app")
            #expect(foreign.errorCode == "INVALID_IDP_RESPONSE")
            let unknown = try await Self.signInWithIdp(c, provider: "facebook.com", accessToken: "EAAB-made-up")
            #expect(unknown.errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func genericOIDCProvidersAreFoundThroughDiscovery() async throws {
        try await Self.withProviders { idp, h, c in
            let issuer = try #require(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.corp"]?.issuer)
            let token = try Self.oidcToken(
                idp, h, iss: issuer, aud: Self.oidcClient, sub: "emp-7",
                extra: ["nonce": .string(NonceRule.hash("o")), "email": "emp7@corp.example", "email_verified": true])
            let r = try await Self.signInWithIdp(c, provider: "oidc.corp", idToken: token, nonce: "o")
            #expect(r.status == 200)
            #expect(r.string("providerId") == "oidc.corp")
            #expect(idp.fetches("/oidc/.well-known/openid-configuration") == 1)
            #expect(try claims(of: r.string("idToken"))["firebase"]?["identities"]?["oidc.corp"] == ["emp-7"])

            let unconfigured = try await Self.signInWithIdp(c, provider: "oidc.other", idToken: token, nonce: "o")
            #expect(unconfigured.errorCode == "OPERATION_NOT_ALLOWED")
        }
    }

    // MARK: Account rules

    @Test func aVerifiedProviderEmailTakesOverAnUnverifiedPasswordAccount() async throws {
        try await Self.withProviders { idp, h, c in
            let squatter = try await c.signUp(email: "ada@example.com", password: "squatter-pw")
            let uid = try #require(squatter.string("localId"))
            var profiled = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            profiled.displayName = "Squatter"
            profiled.photoURL = "https://example.com/squatter.png"
            try await h.store.updateUser(profiled)
            h.clock.advance(2)
            let r = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, email: "ada@example.com"), nonce: "raw-nonce-1")
            #expect(r.status == 200)
            #expect(r.string("localId") == uid)
            #expect(r["isNewUser"] == false)
            let user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            #expect(user.passwordHash == nil)
            #expect(user.emailVerified)
            #expect(user.providers.map(\.providerID) == ["apple.com"])
            #expect(user.providers.first?.isPrivateEmail == false)
            // So is the squatter's profile: the provider's (here none) replaces it.
            #expect(user.displayName == nil && user.photoURL == nil)
            // The squatter's password and session are gone.
            #expect(try await c.signIn("ada@example.com", "squatter-pw").status == 400)
            let refresh = try await c.refresh(try #require(squatter.string("refreshToken")))
            #expect(refresh.errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func anUnverifiedProviderEmailOfAnExistingAccountNeedsConfirmation() async throws {
        try await Self.withProviders { idp, h, c in
            let owner = try await c.signUp(email: "minji@example.com", password: "owner-password")
            let token = try Self.oidcToken(
                idp, h, iss: "https://www.facebook.com", aud: Self.facebookApp, sub: "fb-1",
                extra: ["nonce": .string(NonceRule.hash("n")), "email": "minji@example.com"])
            let r = try await Self.signInWithIdp(
                c, provider: "facebook.com", idToken: token, nonce: "n", extra: ["returnIdpCredential": true])
            #expect(r.status == 200)
            #expect(r["needConfirmation"] == true)
            #expect(r["idToken"] == nil)
            // Only the emulator names the account that holds the address.
            #expect(r["localId"] == nil)
            #expect(r.string("email") == "minji@example.com")
            #expect(r.string("pendingToken") != nil)
            let user = try #require(try await h.store.user(projectID: h.projectID, uid: owner.string("localId")!))
            #expect(user.providers.isEmpty)
            #expect(user.passwordHash != nil)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func linkingAnIdentityOwnedByAnotherUserHandsBackACredential() async throws {
        try await Self.withProviders { idp, h, c in
            let owner = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "a"), nonce: "a")
            let ownerUID = try #require(owner.string("localId"))
            let anonymous = try await c.signUp()
            let anonToken = try #require(anonymous.string("idToken"))

            let plain = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "b"), nonce: "b",
                extra: ["idToken": .string(anonToken)])
            #expect(plain.status == 400)
            #expect(plain.errorCode == "FEDERATED_USER_ID_ALREADY_LINKED")

            let appleToken = try Self.appleToken(idp, h, rawNonce: "c")
            let r = try await Self.signInWithIdp(
                c, idToken: appleToken, nonce: "c",
                extra: ["idToken": .string(anonToken), "returnIdpCredential": true])
            #expect(r.status == 200)
            #expect(r.string("errorMessage") == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(r.string("oauthIdToken") == appleToken)
            #expect(r["idToken"] == nil)
            let pending = try #require(r.string("pendingToken"))

            // The SDK signs in with the handed-back credential: the owner's account, once.
            let viaPending = try await c.post(
                "/v1/accounts:signInWithIdp",
                ["pendingToken": .string(pending), "requestUri": "http://localhost", "returnSecureToken": true])
            #expect(viaPending.status == 200)
            #expect(viaPending.string("localId") == ownerUID)
            let again = try await c.post(
                "/v1/accounts:signInWithIdp", ["pendingToken": .string(pending), "requestUri": "http://localhost"])
            #expect(again.errorCode == "INVALID_PENDING_TOKEN")
            let anon = try #require(try await h.store.user(projectID: h.projectID, uid: anonymous.string("localId")!))
            #expect(anon.providers.isEmpty)
        }
    }

    @Test func linkingRefusesAnEmailOfAnotherAccount() async throws {
        try await Self.withProviders { idp, h, c in
            _ = try await c.signUp(email: "ada@example.com", password: "password-1")
            let anonymous = try await c.signUp()
            let r = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, email: "ada@example.com"), nonce: "raw-nonce-1",
                extra: ["idToken": .string(anonymous.string("idToken")!)])
            #expect(r.status == 400)
            #expect(r.errorCode == "EMAIL_EXISTS")
            // With returnIdpCredential (what the iOS SDK sends) the error comes back in a 200 with the credential.
            let token = try Self.appleToken(idp, h, rawNonce: "n2", email: "ada@example.com")
            let withCredential = try await Self.signInWithIdp(
                c, idToken: token, nonce: "n2",
                extra: ["idToken": .string(anonymous.string("idToken")!), "returnIdpCredential": true])
            #expect(withCredential.status == 200)
            #expect(withCredential.string("errorMessage") == "EMAIL_EXISTS")
            #expect(withCredential.string("oauthIdToken") == token)
            #expect(withCredential["idToken"] == nil)
            let anon = try #require(try await h.store.user(projectID: h.projectID, uid: anonymous.string("localId")!))
            #expect(anon.providers.isEmpty && anon.email == nil)

            // An account with Apple already linked cannot link a second Apple identity.
            let apple = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, sub: "apple-a", rawNonce: "n3", email: nil), nonce: "n3")
            let second = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, sub: "apple-b", rawNonce: "n4", email: nil), nonce: "n4",
                extra: ["idToken": .string(apple.string("idToken")!)])
            #expect(second.errorCode == "PROVIDER_ALREADY_LINKED")
        }
    }

    @Test func linkThenUnlinkChangesProvidersAndTokenIdentities() async throws {
        try await Self.withProviders { idp, h, c in
            let account = try await c.signUp(email: "kim@example.com", password: "password-1")
            let linked = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, email: nil), nonce: "raw-nonce-1",
                extra: ["idToken": .string(account.string("idToken")!)])
            #expect(linked.status == 200)
            #expect(linked.string("localId") == account.string("localId"))
            let linkedClaims = try claims(of: linked.string("idToken"))
            #expect(linkedClaims["firebase"]?["identities"]?["apple.com"] == ["001234.apple"])
            #expect(linkedClaims["firebase"]?["sign_in_provider"] == "apple.com")
            let lookup = try await c.lookup(linked.string("idToken")!)
            let providers = lookup["users"]?.arrayValue?.first?["providerUserInfo"]?.arrayValue ?? []
            #expect(Set(providers.compactMap { $0["providerId"]?.stringValue }) == ["password", "apple.com"])

            let unlinked = try await c.post(
                "/v1/accounts:update",
                ["idToken": .string(linked.string("idToken")!), "deleteProvider": ["apple.com"]])
            #expect(unlinked.status == 200)
            let user = try #require(try await h.store.user(projectID: h.projectID, uid: account.string("localId")!))
            #expect(user.providers.isEmpty)
            #expect(
                try await h.store.user(projectID: h.projectID, providerID: "apple.com", rawID: "001234.apple") == nil)
        }
    }

    @Test func reauthenticationNeverCreatesAndMustNameTheSameUser() async throws {
        try await Self.withProviders { idp, h, c in
            let unknown = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "a"), nonce: "a", extra: ["autoCreate": false])
            #expect(unknown.errorCode == "USER_NOT_FOUND")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)

            let apple = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h, rawNonce: "b"), nonce: "b")
            let other = try await c.signUp()
            let mismatch = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "c"), nonce: "c",
                extra: ["autoCreate": false, "idToken": .string(other.string("idToken")!)])
            #expect(mismatch.status == 400)
            #expect(mismatch.errorCode == "USER_MISMATCH")

            let same = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "d"), nonce: "d",
                extra: ["autoCreate": false, "idToken": .string(apple.string("idToken")!)])
            #expect(same.status == 200)
            #expect(same.string("localId") == apple.string("localId"))
        }
    }

    @Test func duplicateEmailsKeepTheAddressOnTheProviderLinkOnly() async throws {
        try await Self.withProviders(configure: { $0.allowDuplicateEmails = true }) { idp, h, c in
            _ = try await c.signUp(email: "ada@example.com", password: "password-1")
            let r = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, email: "ada@example.com"), nonce: "raw-nonce-1")
            #expect(r.status == 200)
            #expect(r["isNewUser"] == true)
            let user = try #require(try await h.store.user(projectID: h.projectID, uid: r.string("localId")!))
            #expect(user.email == nil)
            #expect(user.providers.first?.email == "ada@example.com")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 2)
        }
    }

    // MARK: Apple token revocation

    @Test func revokingAnAppleAuthorizationCodeReachesApple() async throws {
        try await Self.withProviders { idp, h, c in
            idp.appleCodes.withLock { $0["code-1"] = "apple-refresh-1" }
            let user = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h), nonce: "raw-nonce-1")
            let idToken = try #require(user.string("idToken"))
            // What the iOS SDK sends: revokeToken(withAuthorizationCode:).
            let r = try await c.post(
                "/v2/accounts:revokeToken",
                ["providerId": "apple.com", "tokenType": "3", "token": "code-1", "idToken": .string(idToken)])
            #expect(r.status == 200)
            #expect(idp.appleRevoked.withLock { $0 } == ["refresh_token:apple-refresh-1"])
            #expect(idp.fetches("/apple/token") == 1)

            let reused = try await c.post(
                "/v2/accounts:revokeToken",
                ["providerId": "apple.com", "tokenType": "CODE", "token": "code-1", "idToken": .string(idToken)])
            #expect(reused.status == 400)
            #expect(reused.errorCode == "INVALID_IDP_RESPONSE")

            let refresh = try await c.post(
                "/identitytoolkit.googleapis.com/v2/accounts:revokeToken",
                ["providerId": "apple.com", "tokenType": "REFRESH_TOKEN", "token": "rt-2", "idToken": .string(idToken)])
            #expect(refresh.status == 200)
            #expect(idp.appleRevoked.withLock { $0 }.last == "refresh_token:rt-2")

            let anonymous = try await c.post(
                "/v2/accounts:revokeToken", ["providerId": "apple.com", "tokenType": "3", "token": "code-1"])
            #expect(anonymous.errorCode == "MISSING_ID_TOKEN")
            let google = try await c.post(
                "/v2/accounts:revokeToken",
                ["providerId": "google.com", "tokenType": "3", "token": "x", "idToken": .string(idToken)])
            #expect(google.errorCode == "INVALID_PROVIDER_ID")
            #expect(idp.appleRevoked.withLock { $0.count } == 2)
        }
    }

    @Test func revocationNeedsTheTeamKeyAndAppleToAnswer() async throws {
        try await Self.withProviders(configure: { $0.apple?.privateKey = nil }) { idp, h, c in
            let user = try await c.signUp()
            let r = try await c.post(
                "/v2/accounts:revokeToken",
                [
                    "providerId": "apple.com", "tokenType": "3", "token": "c",
                    "idToken": .string(user.string("idToken")!),
                ])
            #expect(r.status == 400)
            #expect(r.errorCode == "OPERATION_NOT_ALLOWED")
            #expect(idp.fetches("/apple/token") == 0)
        }
        try await Self.withProviders { idp, h, c in
            idp.appleCodes.withLock { $0["code-1"] = "apple-refresh-1" }
            idp.failing.withLock { $0 = true }
            let user = try await c.signUp()
            let r = try await c.post(
                "/v2/accounts:revokeToken",
                [
                    "providerId": "apple.com", "tokenType": "3", "token": "code-1",
                    "idToken": .string(user.string("idToken")!),
                ])
            #expect(r.status == 400)
            #expect(r.errorCode == "INVALID_IDP_RESPONSE")
            #expect(idp.appleRevoked.withLock { $0 }.isEmpty)
        }
    }

    // MARK: Apple server-to-server notifications

    static func appleNotification(
        _ key: TestIdentityProvider.SigningKey, _ h: Harness, type: String, sub: String = "001234.apple",
        jti: String, aud: String = appleClient
    ) throws -> JSONValue {
        let now = h.clock.authClock.now().timeIntervalSince1970.rounded(.down)
        let events: JSONValue = ["type": .string(type), "sub": .string(sub), "event_time": .number(now * 1000)]
        let payload = try key.sign([
            "iss": "https://appleid.apple.com", "aud": .string(aud), "iat": .number(now), "jti": .string(jti),
            "events": .string(events.jsonText),
        ])
        return ["payload": .string(payload)]
    }

    static let notifications = "/hearth/v1/projects/test-project/appleNotifications"

    @Test func appleConsentRevokedUnlinksAndAccountDeleteDisables() async throws {
        try await Self.withProviders { idp, h, c in
            let apple = try Self.key(idp, "rsa-1")
            let user = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h, rawNonce: "a"), nonce: "a")
            let uid = try #require(user.string("localId"))

            let forged = try await c.post(
                Self.notifications,
                try Self.appleNotification(.rsa("rsa-1", slot: 1), h, type: "consent-revoked", jti: "j0"), key: nil)
            #expect(forged.status == 400)
            #expect(forged.errorCode == "INVALID_IDP_RESPONSE")
            let misaddressed = try await c.post(
                Self.notifications,
                try Self.appleNotification(apple, h, type: "consent-revoked", jti: "j0", aud: "com.other"), key: nil)
            #expect(misaddressed.errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.providers.count == 1)

            let revoked = try await c.post(
                Self.notifications, try Self.appleNotification(apple, h, type: "consent-revoked", jti: "j1"), key: nil)
            #expect(revoked.status == 200)
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.providers.isEmpty == true)

            // Signing in with Apple again links back through the verified e-mail.
            let again = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h, rawNonce: "b"), nonce: "b")
            #expect(again.string("localId") == uid)

            let deleted = try Self.appleNotification(apple, h, type: "account-delete", jti: "j2")
            #expect(try await c.post(Self.notifications, deleted, key: nil).status == 200)
            let disabled = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            #expect(disabled.disabled)
            let refresh = try await c.refresh(try #require(again.string("refreshToken")))
            #expect(refresh.status == 400)
            let signIn = try await Self.signInWithIdp(
                c, idToken: try Self.appleToken(idp, h, rawNonce: "c"), nonce: "c")
            #expect(signIn.errorCode == "USER_DISABLED")
            // Apple retrying a delivery is acknowledged.
            #expect(try await c.post(Self.notifications, deleted, key: nil).status == 200)

            let unknown = try await c.post(
                "/hearth/v1/projects/nope/appleNotifications", deleted, key: nil)
            #expect(unknown.errorCode == "INVALID_PROJECT_ID")
        }
    }

    @Test func accountDeleteCanDeleteTheUser() async throws {
        try await Self.withProviders(configure: { $0.apple?.onAccountDelete = .delete }) { idp, h, c in
            let user = try await Self.signInWithIdp(c, idToken: try Self.appleToken(idp, h), nonce: "raw-nonce-1")
            let uid = try #require(user.string("localId"))
            let r = try await c.post(
                Self.notifications,
                try Self.appleNotification(try Self.key(idp, "rsa-1"), h, type: "account-delete", jti: "j1"),
                key: nil)
            #expect(r.status == 200)
            #expect(try await h.store.user(projectID: h.projectID, uid: uid) == nil)
        }
    }

    @Test func concurrentFirstSignInsOfOneIdentityMakeOneAccount() async throws {
        try await Self.withProviders { idp, h, c in
            let tokens = try (0..<6).map { try Self.appleToken(idp, h, rawNonce: "n\($0)") }
            let replies = try await withThrowingTaskGroup(of: Client.Reply.self) { group in
                for (i, token) in tokens.enumerated() {
                    group.addTask { try await Self.signInWithIdp(c, idToken: token, nonce: "n\(i)") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 200 })
            #expect(Set(replies.compactMap { $0.string("localId") }).count == 1)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    // MARK: Emulator mode

    @Test func unsignedTokensAreAcceptedOnlyInEmulatorMode() async throws {
        let fake = #"{"sub":"emu-1","email":"emu@example.com","email_verified":true}"#
        try await Self.withProviders { _, h, c in
            let r = try await Self.signInWithIdp(c, provider: "google.com", idToken: fake)
            #expect(r.errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
        try await Self.withProviders(emulator: true) { _, h, c in
            let r = try await Self.signInWithIdp(c, provider: "google.com", idToken: fake)
            #expect(r.status == 200)
            #expect(r.string("email") == "emu@example.com")
            #expect(r.string("oauthIdToken") == fake)
            #expect(r.string("oauthAccessToken") == "FirebaseAuthEmulatorFakeAccessToken_google.com")
            #expect(try claims(of: r.string("idToken"))["firebase"]?["identities"]?["google.com"] == ["emu-1"])
        }
    }

    @Test func requestShapeErrors() async throws {
        try await Self.withProviders { _, _, c in
            let noURI = try await c.post("/v1/accounts:signInWithIdp", ["postBody": "providerId=apple.com"])
            #expect(noURI.errorCode == "MISSING_REQUEST_URI")
            let noProvider = try await c.post(
                "/v1/accounts:signInWithIdp", ["postBody": "id_token=x", "requestUri": "http://localhost"])
            #expect(noProvider.errorCode == "INVALID_CREDENTIAL_OR_PROVIDER_ID")
            let unsupported = try await Self.signInWithIdp(c, provider: "myspace.com", idToken: "x.y.z")
            #expect(unsupported.errorCode == "INVALID_PROVIDER_ID")
        }
    }
}
