import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthEngine
import NIOCore
import Testing

/// Signing in through the browser: the real `hearth` binary's `/__/auth/handler`, the test IdP as the OAuth 2.0 /
/// OIDC provider (authorization, token and user-info endpoints checking the client secret and PKCE), and the
/// redirect chain followed hop by hop as a browser would, up to the app's `hearth-<project>://` callback.
@Suite("Browser sign-in", .serialized)
struct BrowserSignInTests {
    static let projectID = "browser-test"
    static let apiKey = "browser-key"
    static let appRedirect = "hearth-browser-test://firebaseauth/link"

    /// The IdP, a `hearth serve` whose project trusts it for `oidc.corp` and `github.com`, and a client that
    /// does not follow redirects.
    static func withServer(
        browserSignInsPerHour: Int = 0, googleHostedDomain: String? = nil,
        _ body: @Sendable (TestIdentityProvider, Browser) async throws -> Void
    ) async throws {
        let idp = TestIdentityProvider(keys: [.rsa("rsa-1")])
        try await idp.serve { base in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-web-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let secret = JSONValue.string(TestIdentityProvider.oauthClientSecret)
            let config: JSONValue = [
                // This test's identity provider answers from the test process, which the whole suite shares: at
                // its busiest a discovery fetch took longer than the default 10 s, and the handler sent the client
                // back to the app before the provider.
                "identityProviderTimeoutSeconds": 60,
                "projects": [
                    [
                        "projectId": .string(projectID), "apiKeys": [.string(apiKey)],
                        "rateLimits": [
                            "signUpsPerIPPerHour": 0,
                            "browserSignInsPerIPPerHour": .number(Double(browserSignInsPerHour)),
                        ],
                        "federation": [
                            "google": [
                                "clientIds": ["google-web"], "keysUrl": .string(base + "/google/certs"),
                                "tokenInfoUrl": .string(base + "/google/tokeninfo"),
                                "userInfoUrl": .string(base + "/google/userinfo"),
                                // The browser flow: the test IdP's endpoints stand in for Google's.
                                "clientSecret": secret, "authorizationUrl": .string(base + "/oauth/authorize"),
                                "tokenUrl": .string(base + "/oauth/token"), "issuers": [.string(base + "/oidc")],
                                "hostedDomain": googleHostedDomain.map(JSONValue.string) ?? .null,
                            ],
                            "oidc": [
                                "oidc.corp": [
                                    "issuer": .string(base + "/oidc"), "clientIds": ["hearth-oidc"],
                                    "clientSecret": secret,
                                ],
                                "oidc.tokens-only": ["issuer": .string(base + "/oidc"), "clientIds": ["other"]],
                            ],
                            "twitter": [
                                "consumerKey": .string(TestIdentityProvider.twitterKey),
                                "consumerSecret": .string(TestIdentityProvider.twitterSecret),
                                "requestTokenUrl": .string(base + "/twitter/request_token"),
                                "authorizeUrl": .string(base + "/twitter/authorize"),
                                "accessTokenUrl": .string(base + "/twitter/access_token"),
                                "verifyCredentialsUrl": .string(base + "/twitter/verify_credentials.json"),
                            ],
                            "oauth": [
                                "github.com": [
                                    "clientId": "gh-client", "clientSecret": secret,
                                    "authorizationUrl": .string(base + "/oauth/authorize"),
                                    "tokenUrl": .string(base + "/oauth/token"),
                                    "userInfoUrl": .string(base + "/github/user"),
                                    "emailsUrl": .string(base + "/github/user/emails"),
                                ]
                            ],
                        ],
                    ]
                ],
            ]
            let file = dir.appendingPathComponent("hearth.json")
            try Data(config.jsonText.utf8).write(to: file)
            let server = try ServerProcess(arguments: [
                "--data-dir", dir.appendingPathComponent("data").path, "--config", file.path, "--project", projectID,
                "--admin-port", "0",
            ])
            defer { server.signal(SIGKILL) }
            let port = try await server.waitUntilListening()
            let client = HTTPClient(
                eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            do {
                try await body(idp, Browser(client: client, base: "http://127.0.0.1:\(port)"))
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    /// A browser that shows each redirect instead of following it, and the app's API calls.
    struct Browser: Sendable {
        let client: HTTPClient
        let base: String

        struct Answer {
            var status: Int
            var location: String?
            var body: String
        }

        func get(_ url: String) async throws -> Answer {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            return Answer(
                status: Int(response.status.code), location: response.headers.first(name: "location"),
                body: String(buffer: body))
        }

        func post(_ method: String, _ body: JSONValue) async throws -> Client.Reply {
            var request = HTTPClientRequest(url: "\(base)/v1/\(method)?key=\(BrowserSignInTests.apiKey)")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body.jsonText))
            let response = try await client.execute(request, timeout: .seconds(30))
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            return Client.Reply(
                status: Int(response.status.code), json: (try? JSONValue(parsing: text)) ?? .null, headers: [:])
        }

        /// The handler URL HearthAuth's `WebSignInRequest` opens.
        func handlerURL(
            provider: String, sessionID: String, redirectURL: String = BrowserSignInTests.appRedirect,
            extra: [(String, String)] = []
        ) -> String {
            var c = URLComponents(string: base + "/__/auth/handler")!
            c.queryItems =
                [
                    ("apiKey", BrowserSignInTests.apiKey), ("authType", "signInWithRedirect"), ("ibi", "com.example"),
                    ("sessionId", sha256Hex(sessionID)), ("eventId", "e1"), ("providerId", provider),
                    ("redirectUrl", redirectURL),
                ].map { URLQueryItem(name: $0.0, value: $0.1) } + extra.map { URLQueryItem(name: $0.0, value: $0.1) }
            c.percentEncodedQuery = c.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            return c.string!
        }

        /// Handler → provider → handler → app: the three redirects of a sign-in.
        struct Hops {
            var toProvider: String
            var toHandler: String
            var toApp: String
        }

        func signInHops(provider: String, sessionID: String, extra: [(String, String)] = []) async throws -> Hops {
            let start = try await get(handlerURL(provider: provider, sessionID: sessionID, extra: extra))
            #expect(start.status == 302, "\(start.body)")
            let toProvider = try #require(start.location)
            // Sent back to the app here means the handler failed before reaching the provider: say why.
            try #require(toProvider.hasPrefix("http"), "sent to \(toProvider) before the provider")
            let approved = try await get(toProvider)
            #expect(approved.status == 302)
            let toHandler = try #require(approved.location)
            let back = try await get(toHandler)
            #expect(back.status == 302, "\(back.body)")
            return Hops(toProvider: toProvider, toHandler: toHandler, toApp: try #require(back.location))
        }

        func signInWithIdp(requestURI: String, sessionID: String, idToken: String? = nil, autoCreate: Bool = true)
            async throws -> Client.Reply
        {
            var body: [String: JSONValue] = [
                "requestUri": .string(requestURI), "sessionId": .string(sessionID), "returnSecureToken": true,
                "returnIdpCredential": true, "autoCreate": .bool(autoCreate),
            ]
            if let idToken { body["idToken"] = .string(idToken) }
            return try await post("accounts:signInWithIdp", .object(body))
        }
    }

    static func query(_ url: String) -> [String: String] {
        var out: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { out[item.name] = item.value ?? "" }
        return out
    }

    /// The `requestUri` in the app callback's `deep_link_id`, as HearthAuth reads it.
    static func link(_ appURL: String, app: String = appRedirect) throws -> String {
        #expect(appURL.hasPrefix(app + "?"))
        let deepLink = try #require(query(appURL)["deep_link_id"])
        return try #require(query(deepLink)["link"])
    }

    static func sha256Hex(_ s: String) -> String {
        SHA256.hash(data: Data(s.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Success

    @Test func oidcCodeFlowSignsInOnceWithPKCEAndNonce() async throws {
        try await Self.withServer { idp, browser in
            let session = "session-\(UUID().uuidString)"
            let hops = try await browser.signInHops(
                provider: "oidc.corp", sessionID: session,
                extra: [("scopes", "groups,offline_access"), ("customParameters", #"{"login_hint":"grace+1@x.com"}"#)])
            let asked = try #require(idp.authorizeRequests.withLock { $0.last })
            #expect(hops.toProvider.hasPrefix(idp.base() + "/oauth/authorize?"))
            #expect(asked["response_type"] == "code")
            #expect(asked["client_id"] == "hearth-oidc")
            #expect(asked["redirect_uri"] == browser.base + "/__/auth/handler")
            #expect(asked["scope"] == "openid email profile groups offline_access")
            #expect(asked["code_challenge_method"] == "S256")
            #expect(asked["code_challenge"]?.count == 43)
            #expect((asked["nonce"] ?? "").count >= 16)
            #expect(asked["login_hint"] == "grace+1@x.com")
            #expect((asked["state"] ?? "").count >= 43)

            let link = try Self.link(hops.toApp)
            #expect(Self.query(link)["code"] != nil)
            let signedIn = try await browser.signInWithIdp(requestURI: link, sessionID: session)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("providerId") == "oidc.corp")
            #expect(signedIn.string("email") == "grace@example.com")
            #expect(signedIn["emailVerified"] == true)
            #expect(signedIn.string("localId") != nil)
            #expect(signedIn.string("idToken") != nil)
            #expect(signedIn.string("oauthIdToken") != nil)
            #expect(signedIn["isNewUser"] == true)

            // The pending sign-in is used up: the same link does nothing twice, and the provider cannot return twice.
            let again = try await browser.signInWithIdp(requestURI: link, sessionID: session)
            #expect(again.status == 400)
            #expect(again.errorCode == "INVALID_IDP_RESPONSE")
            let replayedReturn = try await browser.get(hops.toHandler)
            #expect(replayedReturn.status == 400)
            #expect(replayedReturn.location == nil)
        }
    }

    @Test func gitHubShapedOAuthSignsInThroughTheUserInfoEndpoint() async throws {
        try await Self.withServer { idp, browser in
            idp.oauthUser.withLock {
                $0 = ["sub": "octocat", "name": "The Octocat", "email": "octo@example.com", "email_verified": true]
            }
            let session = UUID().uuidString
            let hops = try await browser.signInHops(provider: "github.com", sessionID: session)
            let asked = try #require(idp.authorizeRequests.withLock { $0.last })
            #expect(asked["client_id"] == "gh-client")
            #expect(asked["scope"] == "read:user user:email")
            #expect(asked["nonce"] == nil)
            let signedIn = try await browser.signInWithIdp(requestURI: try Self.link(hops.toApp), sessionID: session)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("providerId") == "github.com")
            // The primary address from /user/emails, verified there.
            #expect(signedIn.string("email") == "octo@example.com")
            #expect(signedIn["emailVerified"] == true)
            #expect(signedIn.string("displayName") == "The Octocat")
            #expect(signedIn.string("oauthAccessToken")?.hasPrefix("access-") == true)
            let raw = try JSONValue(parsing: try #require(signedIn.string("rawUserInfo")))
            #expect(raw["login"] == "octocat")

            // The same GitHub user signs in to the same account next time.
            let session2 = UUID().uuidString
            let hops2 = try await browser.signInHops(provider: "github.com", sessionID: session2)
            let second = try await browser.signInWithIdp(requestURI: try Self.link(hops2.toApp), sessionID: session2)
            #expect(second.status == 200)
            #expect(second.string("localId") == signedIn.string("localId"))
            #expect(second["isNewUser"] == false)
        }
    }

    // MARK: Refusals

    @Test func anotherSessionCannotRedeemTheCode() async throws {
        try await Self.withServer { _, browser in
            let session = UUID().uuidString
            let link = try Self.link(try await browser.signInHops(provider: "github.com", sessionID: session).toApp)
            for wrong in ["someone-else", "", Self.sha256Hex(session)] {
                let refused = try await browser.signInWithIdp(requestURI: link, sessionID: wrong)
                #expect(refused.status == 400)
                #expect(refused.errorCode == "INVALID_IDP_RESPONSE")
            }
            // Wrong guesses do not burn the sign-in for its own app.
            let signedIn = try await browser.signInWithIdp(requestURI: link, sessionID: session)
            #expect(signedIn.status == 200, "\(signedIn.json)")
        }
    }

    @Test func aCodeFromAnotherSignInFailsPKCE() async throws {
        try await Self.withServer { _, browser in
            // Code injection: the victim's sign-in (state B) is finished with a code issued for the attacker's (A).
            // Hearth exchanges it with B's verifier, which does not match A's challenge, and the provider refuses.
            let a = UUID().uuidString
            let b = UUID().uuidString
            let linkA = try Self.link(try await browser.signInHops(provider: "oidc.corp", sessionID: a).toApp)
            let codeA = try #require(Self.query(linkA)["code"])
            let linkB = try Self.link(try await browser.signInHops(provider: "oidc.corp", sessionID: b).toApp)
            let stateB = try #require(Self.query(linkB)["state"])
            let injected = "\(browser.base)/__/auth/handler?state=\(stateB)&code=\(codeA)"
            let refused = try await browser.signInWithIdp(requestURI: injected, sessionID: b)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "INVALID_IDP_RESPONSE")
        }
    }

    @Test func aProviderRefusalGoesBackToTheAppAsFirebaseError() async throws {
        try await Self.withServer { idp, browser in
            idp.authorizeError.withLock { $0 = "access_denied" }
            let hops = try await browser.signInHops(provider: "github.com", sessionID: "s")
            #expect(hops.toHandler.contains("error=access_denied"))
            #expect(hops.toApp.hasPrefix(Self.appRedirect + "?"))
            let error = try JSONValue(parsing: try #require(Self.query(hops.toApp)["firebaseError"]))
            #expect(error["code"] == "auth/web-context-canceled")

            idp.authorizeError.withLock { $0 = "server_error" }
            let other = try await browser.signInHops(provider: "oidc.corp", sessionID: "s")
            let otherError = try JSONValue(parsing: try #require(Self.query(other.toApp)["firebaseError"]))
            #expect(otherError["code"] == "auth/invalid-credential")
            #expect(otherError["message"]?.stringValue?.contains("server_error") == true)

            // A provider that is not set up for the browser: the app hears why, no provider is visited.
            let disabled = try await browser.get(browser.handlerURL(provider: "oidc.tokens-only", sessionID: "s"))
            #expect(disabled.status == 302)
            let disabledLocation = try #require(disabled.location)
            let disabledError = try JSONValue(parsing: try #require(Self.query(disabledLocation)["firebaseError"]))
            #expect(disabledError["code"] == "auth/operation-not-allowed")
        }
    }

    @Test func onlyTheAppsCallbackOrAnAuthorizedDomainIsARedirectTarget() async throws {
        try await Self.withServer { idp, browser in
            let refused = [
                "https://evil.example.com/collect", "hearth-other-project://firebaseauth/link",
                "hearth-browser-test://firebaseauth/link?x=1", "hearth-browser-test://evil.example.com/link",
                "hearth-browser-test://firebaseauth/other", "javascript:alert(1)", "//evil.example.com/",
                "https://localhost@evil.example.com/", "",
            ]
            for target in refused {
                let answer = try await browser.get(
                    browser.handlerURL(provider: "github.com", sessionID: "s", redirectURL: target))
                #expect(answer.status == 400, "\(target)")
                #expect(answer.location == nil, "\(target)")
            }
            #expect(idp.authorizeRequests.withLock { $0.isEmpty })
            // A wrong API key, or a session id that is not a SHA-256, never reach the provider either.
            var wrongKey = browser.handlerURL(provider: "github.com", sessionID: "s")
            wrongKey = wrongKey.replacingOccurrences(of: "apiKey=\(Self.apiKey)", with: "apiKey=nope")
            #expect(try await browser.get(wrongKey).status == 400)
            let badSession = try await browser.get(
                browser.handlerURL(provider: "github.com", sessionID: "s").replacingOccurrences(
                    of: Self.sha256Hex("s"), with: "raw-session"))
            #expect(badSession.status == 302)
            #expect(badSession.location?.hasPrefix(Self.appRedirect) == true)
            #expect(idp.authorizeRequests.withLock { $0.isEmpty })
            // An unknown state is a page, not a redirect.
            let unknown = try await browser.get(browser.base + "/__/auth/handler?state=forged&code=c")
            #expect(unknown.status == 400)
            #expect(unknown.location == nil)
        }
    }

    /// The data block of one of the handler's web SDK pages.
    static func webData(_ page: String) throws -> JSONValue {
        let open = #"<script type="application/json" id="hearth-data">"#
        let start = try #require(page.range(of: open))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        return try JSONValue(parsing: String(page[start.upperBound..<end.lowerBound]))
    }

    /// Firebase's JS SDK: a web `authType` and no `sessionId`. The handler makes the session id and keeps it in the
    /// tab (the start page's data, never a URL); the return page carries the link the SDK presents with it.
    @Test func theWebSDKsSignInGetsItsSessionFromTheHandler() async throws {
        try await Self.withServer { idp, browser in
            func handler(_ authType: String, redirectURL: String) -> String {
                var c = URLComponents(string: browser.base + "/__/auth/handler")!
                c.queryItems = [
                    ("apiKey", Self.apiKey), ("appName", "[DEFAULT]"), ("authType", authType),
                    ("providerId", "github.com"), ("eventId", "e7"), ("redirectUrl", redirectURL), ("v", "12"),
                ].map { URLQueryItem(name: $0.0, value: $0.1) }
                return c.string!
            }
            // The event goes back by script: an app's callback scheme, or a host the project does not authorize,
            // is a page before anything starts.
            for target in [Self.appRedirect, "https://evil.example.com/app"] {
                let refused = try await browser.get(handler("signInViaPopup", redirectURL: target))
                #expect(refused.status == 400, "\(target)")
                #expect(!refused.body.contains("hearth-data"), "\(target)")
            }
            #expect(idp.authorizeRequests.withLock { $0.isEmpty })

            let start = try await browser.get(handler("signInViaRedirect", redirectURL: "http://localhost:5000/app"))
            #expect(start.status == 200, "\(start.body)")
            let data = try Self.webData(start.body)
            let sessionID = try #require(data["start"]?["sessionId"]?.stringValue)
            #expect(data["start"]?["eventId"] == "e7")
            #expect(data["start"]?["type"] == "signInViaRedirect")
            let providerURL = try #require(data["providerUrl"]?.stringValue)
            #expect(!providerURL.contains(sessionID))
            #expect(Self.query(providerURL)["state"] == data["state"]?.stringValue)

            let approved = try await browser.get(providerURL)
            let back = try await browser.get(try #require(approved.location))
            #expect(back.status == 200, "\(back.body)")
            #expect(!back.body.contains(sessionID))
            let link = try #require(try Self.webData(back.body)["urlResponse"]?.stringValue)
            #expect(try await browser.signInWithIdp(requestURI: link, sessionID: "guess").status == 400)
            let signedIn = try await browser.signInWithIdp(requestURI: link, sessionID: sessionID)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("providerId") == "github.com")
        }
    }

    @Test func browserSignInsPerClientAreLimited() async throws {
        try await Self.withServer(browserSignInsPerHour: 2) { idp, browser in
            for _ in 0..<2 {
                #expect(try await browser.get(browser.handlerURL(provider: "github.com", sessionID: "s")).status == 302)
            }
            let limited = try await browser.get(browser.handlerURL(provider: "github.com", sessionID: "s"))
            let location = try #require(limited.location)
            #expect(location.hasPrefix(Self.appRedirect + "?"))
            let error = try JSONValue(parsing: try #require(Self.query(location)["firebaseError"]))
            #expect(error["code"] == "auth/too-many-requests")
            let viaAPI = try await browser.post(
                "accounts:createAuthUri", ["providerId": "github.com", "continueUri": "http://localhost/finish"])
            #expect(viaAPI.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(idp.authorizeRequests.withLock { $0.isEmpty })
        }
    }

    // MARK: Linking and createAuthUri

    @Test func aSignedInUserLinksAndReauthenticatesWithTheCode() async throws {
        try await Self.withServer { idp, browser in
            let account = try await browser.post(
                "accounts:signUp",
                ["email": "linker@example.com", "password": "correct horse", "returnSecureToken": true])
            #expect(account.status == 200, "\(account.json)")
            idp.oauthUser.withLock {
                $0 = ["sub": "linker-gh", "name": "Linker", "email": "linker@example.com", "email_verified": true]
            }
            let session = UUID().uuidString
            let hops = try await browser.signInHops(provider: "github.com", sessionID: session)
            let linked = try await browser.signInWithIdp(
                requestURI: try Self.link(hops.toApp), sessionID: session, idToken: account.string("idToken"))
            #expect(linked.status == 200, "\(linked.json)")
            #expect(linked.string("localId") == account.string("localId"))
            let lookup = try await browser.post(
                "accounts:lookup", ["idToken": .string(try #require(linked.string("idToken")))])
            let providers = lookup["users"]?[0]?["providerUserInfo"]?.arrayValue?.compactMap {
                $0["providerId"]?.stringValue
            }
            #expect(Set(providers ?? []) == ["password", "github.com"])

            // Re-authentication through the browser: the same GitHub user, for the signed-in account only.
            let again = UUID().uuidString
            let reauthHops = try await browser.signInHops(provider: "github.com", sessionID: again)
            let reauth = try await browser.signInWithIdp(
                requestURI: try Self.link(reauthHops.toApp), sessionID: again, idToken: linked.string("idToken"),
                autoCreate: false)
            #expect(reauth.status == 200, "\(reauth.json)")
            #expect(reauth.string("localId") == account.string("localId"))
            let stranger = try await browser.post(
                "accounts:signUp",
                ["email": "stranger@example.com", "password": "correct horse", "returnSecureToken": true])
            let other = UUID().uuidString
            let otherHops = try await browser.signInHops(provider: "github.com", sessionID: other)
            let mismatch = try await browser.signInWithIdp(
                requestURI: try Self.link(otherHops.toApp), sessionID: other, idToken: stranger.string("idToken"),
                autoCreate: false)
            #expect(mismatch.errorCode == "USER_MISMATCH")
        }
    }

    @Test func createAuthUriStartsASignInThatReturnsToTheContinueUri() async throws {
        try await Self.withServer { idp, browser in
            let started = try await browser.post(
                "accounts:createAuthUri",
                ["providerId": "oidc.corp", "continueUri": "http://localhost/finish", "oauthScope": "groups"])
            #expect(started.status == 200, "\(started.json)")
            let authURI = try #require(started.string("authUri"))
            let session = try #require(started.string("sessionId"))
            #expect(authURI.hasPrefix(idp.base() + "/oauth/authorize?"))
            #expect(Self.query(authURI)["redirect_uri"] == "http://localhost/finish")
            #expect(Self.query(authURI)["scope"] == "openid email profile groups")
            let approved = try await browser.get(authURI)
            let requestURI = try #require(approved.location)
            #expect(requestURI.hasPrefix("http://localhost/finish?"))
            #expect(
                try await browser.signInWithIdp(requestURI: requestURI, sessionID: "other").errorCode
                    == "INVALID_IDP_RESPONSE")
            let signedIn = try await browser.signInWithIdp(requestURI: requestURI, sessionID: session)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("providerId") == "oidc.corp")

            let elsewhere = try await browser.post(
                "accounts:createAuthUri", ["providerId": "oidc.corp", "continueUri": "https://evil.example.com/finish"])
            #expect(elsewhere.status == 400)
            #expect(elsewhere.errorCode == "UNAUTHORIZED_DOMAIN")
        }
    }

    // MARK: Twitter (OAuth 1.0a)

    @Test func twitterSignsInThroughTheBrowserWithOAuth1() async throws {
        try await Self.withServer { idp, browser in
            let session = UUID().uuidString
            let hops = try await browser.signInHops(
                provider: "twitter.com", sessionID: session, extra: [("customParameters", #"{"force_login":"true"}"#)])
            #expect(hops.toProvider.hasPrefix(idp.base() + "/twitter/authorize?oauth_token=req-"))
            #expect(Self.query(hops.toProvider)["force_login"] == "true")
            #expect(hops.toHandler.contains("oauth_verifier="))
            let link = try Self.link(hops.toApp)
            #expect(try await browser.signInWithIdp(requestURI: link, sessionID: "other").status == 400)
            let signedIn = try await browser.signInWithIdp(requestURI: link, sessionID: session)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("providerId") == "twitter.com")
            #expect(signedIn.string("federatedId") == "1234567890")
            #expect(signedIn.string("email") == "tweety@example.com")
            #expect(signedIn.string("displayName") == "Tweety")
            // The handle becomes the new account's screenName.
            #expect(signedIn.string("screenName") == "tweety")
            let looked = try await browser.post("accounts:lookup", ["idToken": .string(try #require(signedIn.string("idToken")))])
            #expect(looked["users"]?[0]?["screenName"] == "tweety")
            let token = try #require(signedIn.string("oauthAccessToken"))
            let secret = try #require(signedIn.string("oauthTokenSecret"))
            #expect(try await browser.signInWithIdp(requestURI: link, sessionID: session).status == 400)

            // The token and secret the app got back sign in again directly (TwitterAuthProvider.credential).
            let direct = try await browser.post(
                "accounts:signInWithIdp",
                [
                    "requestUri": "http://localhost", "returnSecureToken": true,
                    "postBody": .string("providerId=twitter.com&access_token=\(token)&oauth_token_secret=\(secret)"),
                ])
            #expect(direct.status == 200, "\(direct.json)")
            #expect(direct.string("localId") == signedIn.string("localId"))
            let forged = try await browser.post(
                "accounts:signInWithIdp",
                [
                    "requestUri": "http://localhost", "returnSecureToken": true,
                    "postBody": .string("providerId=twitter.com&access_token=\(token)&oauth_token_secret=guess"),
                ])
            #expect(forged.errorCode == "INVALID_IDP_RESPONSE")

            // The user declines: back to the app as a cancellation.
            idp.authorizeError.withLock { $0 = "access_denied" }
            let declined = try await browser.signInHops(provider: "twitter.com", sessionID: "s")
            #expect(declined.toHandler.contains("denied="))
            let error = try JSONValue(parsing: try #require(Self.query(declined.toApp)["firebaseError"]))
            #expect(error["code"] == "auth/web-context-canceled")
        }
    }

    // MARK: Google by access token

    @Test func googleSignsInWithAnAccessTokenIssuedToTheProject() async throws {
        try await Self.withServer { idp, browser in
            let user: [String: JSONValue] = [
                "sub": "g-123", "email": "Ada@Gmail.com", "email_verified": true, "name": "Ada",
                "picture": "https://p/a",
            ]
            func signIn(_ token: String) async throws -> Client.Reply {
                try await browser.post(
                    "accounts:signInWithIdp",
                    [
                        "requestUri": "http://localhost",
                        "postBody": .string("providerId=google.com&access_token=\(token)"),
                        "returnSecureToken": true,
                    ])
            }
            let signedIn = try await signIn(idp.issueAccessToken(client: "google-web", user: user))
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("email") == "ada@gmail.com")
            #expect(signedIn.string("federatedId") == "https://accounts.google.com/g-123")
            #expect(signedIn.string("displayName") == "Ada")

            let foreign = try await signIn(idp.issueAccessToken(client: "another-app", user: user))
            #expect(foreign.status == 400)
            #expect(foreign.errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await signIn("not-a-token").errorCode == "INVALID_IDP_RESPONSE")
        }
    }

    /// Google in the browser: the code flow with PKCE and a nonce for the web client, the ID token from the token
    /// endpoint checked as Google's (issuer, audience, keys, nonce).
    @Test func googleSignsInThroughTheBrowserWithItsIDToken() async throws {
        try await Self.withServer { idp, browser in
            idp.oauthUser.withLock { $0 = ["sub": "g-77", "email": "Lin@Example.com", "email_verified": true] }
            let session = UUID().uuidString
            let hops = try await browser.signInHops(provider: "google.com", sessionID: session)
            let asked = try #require(idp.authorizeRequests.withLock { $0.last })
            #expect(asked["client_id"] == "google-web")
            #expect(asked["scope"] == "openid email profile")
            #expect(asked["code_challenge_method"] == "S256")
            #expect((asked["nonce"] ?? "").count >= 16)
            #expect(asked["hd"] == nil)
            let signedIn = try await browser.signInWithIdp(requestURI: try Self.link(hops.toApp), sessionID: session)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(signedIn.string("providerId") == "google.com")
            #expect(signedIn.string("federatedId") == "https://accounts.google.com/g-77")
            #expect(signedIn.string("email") == "lin@example.com")
        }
    }

    /// A project that names a Workspace domain asks Google for it (`hd`) and admits only ID tokens of that domain.
    @Test func googlesHostedDomainIsEnforced() async throws {
        try await Self.withServer(googleHostedDomain: "corp.example") { idp, browser in
            idp.oauthUser.withLock { $0 = ["sub": "g-1", "email": "a@gmail.com", "email_verified": true] }
            let outsider = try await browser.signInHops(provider: "google.com", sessionID: "s1")
            #expect(idp.authorizeRequests.withLock { $0.last?["hd"] } == "corp.example")
            let refused = try await browser.signInWithIdp(requestURI: try Self.link(outsider.toApp), sessionID: "s1")
            #expect(refused.status == 400)
            #expect(refused.errorCode == "INVALID_IDP_RESPONSE")

            idp.oauthUser.withLock {
                $0 = ["sub": "g-2", "email": "b@corp.example", "email_verified": true, "hd": "corp.example"]
            }
            let member = try await browser.signInHops(provider: "google.com", sessionID: "s2")
            let admitted = try await browser.signInWithIdp(requestURI: try Self.link(member.toApp), sessionID: "s2")
            #expect(admitted.status == 200, "\(admitted.json)")
        }
    }

    // MARK: Tenants

    /// A tenant's browser sign-in (`tid`) makes a user of that tenant, and only a request naming the tenant can
    /// finish it. In-process (the emulator brings tenants into being by name), with the test IdP as provider: the
    /// project's GitHub is not the tenant's, the OIDC provider configured under the tenant is.
    @Test func aTenantsSignInStaysInTheTenant() async throws {
        let idp = TestIdentityProvider(keys: [.rsa("rsa-1")])
        try await idp.serve { base in
            let h = try await Harness(emulator: true) { project in
                var github = OAuthSettings(clientId: "gh-client", clientSecret: TestIdentityProvider.oauthClientSecret)
                github.authorizationUrl = base + "/oauth/authorize"
                github.tokenUrl = base + "/oauth/token"
                github.userInfoUrl = base + "/github/user"
                github.emailsUrl = base + "/github/user/emails"
                project.federation.oauth = ["github.com": github]
            }
            let client = HTTPClient(
                eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = client.shutdown() }
            try await h.run { c in
                let session = UUID().uuidString
                func start(_ provider: String) async throws -> String {
                    let start = try await c.send(
                        "/__/auth/handler?apiKey=\(Harness.apiKey)&tid=acme-1&providerId=\(provider)"
                            + "&sessionId=\(Self.sha256Hex(session))"
                            + "&redirectUrl=hearth-test-project://firebaseauth/link",
                        method: .get, key: nil)
                    #expect(start.status == 302, "\(start.json)")
                    return try #require(start.headers[.location])
                }
                let parents = try await start("github.com")
                #expect(parents.hasPrefix("hearth-test-project://") && parents.contains("operation-not-allowed"))
                let configured = try await c.admin(
                    "/v2/projects/\(h.projectID)/tenants/acme-1/oauthIdpConfigs?oauthIdpConfigId=oidc.corp",
                    [
                        "clientId": "hearth-oidc", "issuer": .string(base + "/oidc"),
                        "clientSecret": .string(TestIdentityProvider.oauthClientSecret),
                        "responseType": ["code": true, "idToken": false],
                    ], token: "owner")
                #expect(configured.status == 200, "\(configured.json)")

                let toProvider = try await start("oidc.corp")
                let approved = try await client.execute(HTTPClientRequest(url: toProvider), timeout: .seconds(30))
                let backLocation = try #require(approved.headers.first(name: "location"))
                let back = try #require(URLComponents(string: backLocation))
                let backQuery = try #require(back.percentEncodedQuery)
                let toApp = try await c.send("\(back.path)?\(backQuery)", method: .get, key: nil)
                let appLocation = try #require(toApp.headers[.location])
                let link = try Self.link(appLocation, app: "hearth-test-project://firebaseauth/link")

                func finish(tenant: String?) async throws -> Client.Reply {
                    var body: [String: JSONValue] = [
                        "requestUri": .string(link), "sessionId": .string(session), "returnSecureToken": true,
                    ]
                    if let tenant { body["tenantId"] = .string(tenant) }
                    return try await c.post("/v1/accounts:signInWithIdp", .object(body))
                }
                #expect(try await finish(tenant: nil).errorCode == "INVALID_IDP_RESPONSE")
                let signedIn = try await finish(tenant: "acme-1")
                #expect(signedIn.status == 200, "\(signedIn.json)")
                #expect(signedIn.string("providerId") == "oidc.corp")
                #expect(try claims(of: signedIn.string("idToken"))["firebase"]?["tenant"] == "acme-1")
            }
        }
    }
}
