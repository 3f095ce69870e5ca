import Foundation
import HearthTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import HearthAuth

/// Browser sign-in and Game Center on Linux, where AuthenticationServices and GameKit do not exist:
/// FirebaseAuth's calls compile and fail with FirebaseAuth's errors. The handler URL and the redirect
/// handling are platform-independent and checked here.
@Suite("Web sign-in")
struct WebSignInTests {
    static let options = HearthOptions(
        apiKey: "web-key", projectID: "My_Project", endpoint: URL(string: "https://auth.example.com/")!)

    @Test func withoutAuthenticationServicesTheWebFlowFailsWithFirebasesError() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let provider = OAuthProvider(providerID: "github.com", auth: auth)
        provider.scopes = ["user:email"]
        let direct = await #expect(throws: NSError.self) { try await provider.credential(with: nil) }
        #expect(direct?.code == AuthErrorCode.webInternalError.rawValue)
        let viaAuth = await #expect(throws: NSError.self) { try await auth.signIn(with: provider, uiDelegate: nil) }
        #expect(viaAuth?.code == AuthErrorCode.webInternalError.rawValue)
        #expect(auth.currentUser == nil)

        let seen = Seen()
        provider.getCredentialWith(nil) { credential, error in
            #expect(credential == nil)
            seen.uids.append(String((error as NSError?)?.code ?? 0))
        }
        try await waitUntil { seen.uids.count == 1 }
        #expect(await seen.uids == [String(AuthErrorCode.webInternalError.rawValue)])

        let gameCenter = await #expect(throws: NSError.self) { try await GameCenterAuthProvider.getCredential() }
        #expect(gameCenter?.code == AuthErrorCode.gameKitNotLinked.rawValue)
    }

    @Test func theHandlerURLCarriesFirebasesParameters() throws {
        let request = WebSignInRequest(
            providerID: "microsoft.com", scopes: ["mail.read", "a+b"], customParameters: ["prompt": "consent"],
            options: Self.options, endpoint: Self.options.endpoint, tenantID: "t1", languageCode: "fr",
            bundleID: "com.example.app", sessionID: "session-1", eventID: "event-1")
        let url = request.handlerURL
        #expect(url.absoluteString.hasPrefix("https://auth.example.com/__/auth/handler?"))
        #expect(url.absoluteString.contains("a%2Bb"))  // a literal plus survives form decoding
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(query["apiKey"] == "web-key")
        #expect(query["providerId"] == "microsoft.com")
        #expect(query["authType"] == "signInWithRedirect")
        #expect(query["sessionId"] == CryptoUtils.sha256("session-1"))  // only the hash leaves the device
        #expect(query["eventId"] == "event-1")
        #expect(query["ibi"] == "com.example.app")
        #expect(query["tid"] == "t1")
        #expect(query["hl"] == "fr")
        #expect(query["scopes"] == "mail.read,a+b")
        #expect(query["customParameters"] == #"{"prompt":"consent"}"#)
        #expect(query["redirectUrl"] == "hearth-my-project://firebaseauth/link")
        #expect(request.callbackScheme == "hearth-my-project")
    }

    @Test func theRedirectBecomesACredentialOrFirebasesError() throws {
        let request = WebSignInRequest(
            providerID: "github.com", scopes: nil, customParameters: nil, options: Self.options,
            endpoint: Self.options.endpoint, tenantID: nil, languageCode: nil, sessionID: "raw-session")
        let link = "https://auth.example.com/__/auth/callback?code=abc&state=xyz"
        var deepLink = URLComponents(string: "https://auth.example.com/__/auth/callback")!
        deepLink.queryItems = [
            URLQueryItem(name: "authType", value: "signInWithRedirect"), .init(name: "link", value: link),
        ]
        var callback = URLComponents(string: "hearth-my-project://firebaseauth/link")!
        callback.queryItems = [URLQueryItem(name: "deep_link_id", value: deepLink.url!.absoluteString)]

        let credential = try request.credential(fromCallback: callback.url!)
        #expect(credential.provider == "github.com")
        #expect(credential.webRedirect?.requestURI == link)
        #expect(credential.webRedirect?.sessionID == "raw-session")
        // signInWithIdp finishes it with the redirect and the raw session id, and no provider tokens.
        let body = IdPSignInRequest.body(for: credential, idToken: nil, autoCreate: true)
        #expect(body["requestUri"]?.string == link)
        #expect(body["sessionId"]?.string == "raw-session")
        #expect(body["postBody"] == nil)

        var failed = URLComponents(string: "hearth-my-project://firebaseauth/link")!
        failed.queryItems = [
            URLQueryItem(name: "firebaseError", value: #"{"code":"auth/web-context-canceled","message":"closed"}"#)
        ]
        let cancelled = #expect(throws: NSError.self) { try request.credential(fromCallback: failed.url!) }
        #expect(cancelled?.code == AuthErrorCode.webContextCancelled.rawValue)

        let foreign = #expect(throws: NSError.self) {
            try request.credential(fromCallback: URL(string: "otherapp://firebaseauth/link?x=1")!)
        }
        #expect(foreign?.code == AuthErrorCode.webSignInUserInteractionFailure.rawValue)
    }

    /// The whole browser flow against the real server's `/__/auth/handler`, with the SDK's own URL and callback
    /// handling: only the browser is played by the test (it stops at each redirect), and the provider's consent by
    /// a redirect back to the handler. The GitHub-shaped provider's token and profile endpoints are `KeyServer`'s.
    @Test func theServersHandlerCompletesASignInForTheSDK() async throws {
        let tokenRequests = Mutex<[String]>([])
        let provider = try KeyServer(
            bodies: [
                "POST /token": Data(#"{"access_token":"gh-access","token_type":"bearer"}"#.utf8),
                "/user": Data(#"{"id":777,"login":"sdk-octo","name":"SDK Octo","email":"octo-sdk@example.com"}"#.utf8),
            ],
            onPost: { path, body in tokenRequests.withLock { $0.append(String(decoding: body, as: UTF8.self)) } })
        defer { provider.stop() }
        let server = try await TestServer(federation: [
            "oauth": [
                "github.com": [
                    "clientId": "gh-client", "clientSecret": "gh-secret",
                    "authorizationUrl": provider.base + "/authorize", "tokenUrl": provider.base + "/token",
                    "userInfoUrl": provider.base + "/user",
                    "emailsUrl": provider.base + "/emails",
                ]
            ]
        ])
        defer { server.stop() }
        let auth = server.makeAuth()
        let web = auth.webSignInRequest(providerID: "github.com", scopes: ["repo"], customParameters: ["login": "x"])

        let toProvider = try await Self.redirect(from: web.handlerURL)
        #expect(toProvider.absoluteString.hasPrefix(provider.base + "/authorize?"))
        let asked = Self.query(toProvider)
        #expect(asked["scope"] == "read:user user:email repo")
        #expect(asked["login"] == "x")
        let handler = try #require(asked["redirect_uri"])
        let state = try #require(asked["state"])
        // The user approves; the provider sends the browser back to the handler, which sends it to the app.
        let callback = try await Self.redirect(from: URL(string: "\(handler)?code=gh-code&state=\(state)")!)
        #expect(web.isCallback(callback))

        let result = try await auth.signIn(with: try web.credential(fromCallback: callback))
        #expect(result.user.email == "octo-sdk@example.com")
        #expect(result.user.displayName == "SDK Octo")
        #expect(result.user.providerData.map(\.providerID) == ["github.com"])
        #expect(result.additionalUserInfo?.isNewUser == true)
        let exchange = Self.form(try #require(tokenRequests.withLock { $0.first }))
        #expect(exchange["code"] == "gh-code")
        #expect(exchange["client_secret"] == "gh-secret")
        #expect((exchange["code_verifier"] ?? "").count >= 43)

        // The provider's redirect is accepted once.
        let replay = try await Self.answer(URL(string: "\(handler)?code=gh-code&state=\(state)")!)
        #expect(replay.statusCode == 400)
    }

    /// A session that shows redirects instead of following them, as the browser's address bar would.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) { completionHandler(nil) }
    }

    static func answer(_ url: URL) async throws -> HTTPURLResponse {
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.data(from: url)
        return try #require(response as? HTTPURLResponse)
    }

    static func redirect(from url: URL) async throws -> URL {
        let response = try await answer(url)
        #expect(response.statusCode == 302)
        return try #require(response.value(forHTTPHeaderField: "Location").flatMap(URL.init(string:)))
    }

    static func query(_ url: URL) -> [String: String] {
        var out: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            out[item.name] = item.value ?? ""
        }
        return out
    }

    static func form(_ body: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if kv.count == 2 { out[kv[0]] = kv[1] }
        }
        return out
    }

    @Test func canHandleRecognisesOnlyThisAppsRedirect() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let scheme = WebSignInRequest.callbackScheme(for: server.options)
        #expect(auth.canHandle(URL(string: "\(scheme)://firebaseauth/link?deep_link_id=x")!))
        #expect(!auth.canHandle(URL(string: "\(scheme)://elsewhere/link")!))
        #expect(!auth.canHandle(URL(string: "https://example.com/")!))
    }
}

/// The silent-push half of phone app verification: the pushed secret reaches the verification that
/// waits for its receipt, whichever comes first; anything else is not Auth's notification.
@Suite("APNs notifications")
struct APNSNotificationTests {
    @Test func thePushedSecretReachesTheWaitingVerification() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        #expect(!auth.canHandleNotification(["aps": ["content-available": 1]]))
        #expect(auth.canHandleNotification(["com.google.firebase.auth": ["receipt": "probe"]]))  // a probe

        async let secret = auth.waitForPushedSecret(receipt: "r1", timeout: 10)
        try await Task.sleep(for: .milliseconds(100))
        #expect(auth.canHandleNotification(["com.google.firebase.auth": ["receipt": "r1", "secret": "s1"]]))
        #expect(try await secret == "s1")

        // The push may arrive before anyone waits (the JSON-string form FirebaseAuth also accepts).
        #expect(auth.canHandleNotification(["com.google.firebase.auth": #"{"receipt":"r2","secret":"s2"}"#]))
        #expect(try await auth.waitForPushedSecret(receipt: "r2", timeout: 10) == "s2")

        let late = await #expect(throws: NSError.self) {
            try await auth.waitForPushedSecret(receipt: "r3", timeout: 0.2)
        }
        #expect(late?.code == AuthErrorCode.notificationNotForwarded.rawValue)
    }
}

/// Phone app verification's reCAPTCHA fallback page: its URL, and the token (or error) its redirect carries.
@Suite("reCAPTCHA fallback")
struct RecaptchaFallbackPageTests {
    @Test func thePageURLCarriesFirebasesParameters() throws {
        let page = AppVerificationPage(
            options: WebSignInTests.options, endpoint: WebSignInTests.options.endpoint, tenantID: "t1",
            languageCode: "ko", bundleID: "com.example.app", eventID: "event-9")
        #expect(page.pageURL.absoluteString.hasPrefix("https://auth.example.com/__/auth/handler?"))
        let items = try #require(URLComponents(url: page.pageURL, resolvingAgainstBaseURL: false)?.queryItems)
        let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(query["authType"] == "verifyApp")
        #expect(query["apiKey"] == "web-key")
        #expect(query["redirectUrl"] == "hearth-my-project://firebaseauth/link")
        #expect(query["eventId"] == "event-9" && query["tid"] == "t1" && query["hl"] == "ko")
        #expect(query["ibi"] == "com.example.app")
    }

    @Test func theRedirectBecomesATokenOrAnError() throws {
        let page = AppVerificationPage(
            options: WebSignInTests.options, endpoint: nil, tenantID: nil, languageCode: nil, eventID: "e")
        func callback(_ deepLinkQuery: String) -> URL {
            let link = "https://auth.example.com/__/auth/handler?\(deepLinkQuery)"
            let escaped = link.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return URL(string: "hearth-my-project://firebaseauth/link?deep_link_id=\(escaped)")!
        }
        #expect(try page.token(fromCallback: callback("authType=verifyApp&recaptchaToken=03AF-x.y_z&eventId=e")) == "03AF-x.y_z")
        let refused = #expect(throws: NSError.self) {
            try page.token(
                fromCallback: URL(
                    string: "hearth-my-project://firebaseauth/link?firebaseError=%7B%22code%22%3A%22auth%2Foperation-not-allowed%22%7D")!)
        }
        #expect(refused?.code == AuthErrorCode.appVerificationUserInteractionFailure.rawValue)
        #expect(refused?.userInfo[AuthErrorUserInfoServerCodeKey] as? String == "auth/operation-not-allowed")
        let foreign = #expect(throws: NSError.self) {
            try page.token(fromCallback: URL(string: "other-app://firebaseauth/link?deep_link_id=x")!)
        }
        #expect(foreign?.code == AuthErrorCode.appVerificationUserInteractionFailure.rawValue)
    }

    /// On Linux there is no browser to show the page: a server that wants a proof the app cannot give still answers
    /// the app with FirebaseAuth's MISSING_APP_CREDENTIAL error.
    @Test func withoutAPageToShowTheCodeRequestFailsAsFirebaseAuthWould() async throws {
        // Nothing answers at this siteverify URL: no token ever reaches it.
        let server = try await TestServer(
            appVerification: "recaptcha",
            recaptcha: ["secret": "s", "siteKey": "k", "siteverifyUrl": "http://127.0.0.1:\(try closedPort())/siteverify"])
        let auth = server.makeAuth()
        let error = await #expect(throws: NSError.self) {
            try await PhoneAuthProvider.provider(auth: auth).verifyPhoneNumber("+447400123456", uiDelegate: nil)
        }
        #expect(error?.code == AuthErrorCode.missingAppCredential.rawValue)
    }
}
