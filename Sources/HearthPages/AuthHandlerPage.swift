import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import HearthStore
import Hummingbird

/// Hearth's auth handler, `/__/auth/handler`: the browser half of signing in with an OAuth provider, as Firebase
/// Hosting's handler does it for FirebaseAuth's web flow (what HearthAuth's `OAuthProvider` opens).
///
/// 1. The app opens `?apiKey&providerId&sessionId=<sha256 of its session id>&redirectUrl=…`: the handler stores a
///    pending authorization and redirects to the provider (authorization-code flow, PKCE S256, `state`).
/// 2. The provider returns to `?code&state` (or `?error&state`): the handler redirects to the app's `redirectUrl`
///    with `deep_link_id` whose `link` is the request URI for `accounts:signInWithIdp`, or with `firebaseError`.
///
/// The code in that link is worthless without the app's raw session id and the verifier the store keeps, and the
/// handler only ever redirects to the app's own callback scheme or a domain the project authorizes.
///
/// Firebase's JS SDK opens the same handler with a web `authType` (`signInViaPopup`, …) and no `sessionId`; it takes
/// the result as an auth event through `/__/auth/iframe` (`AuthHandlerPage+WebSDK.swift`).
public struct AuthHandlerPage: Sendable {
    let engine: AuthEngine
    /// The server's public base URL (`publicURL`); without one, the request's Host names it.
    let publicURL: String?
    static let path = "/__/auth/handler"

    public init(engine: AuthEngine, publicURL: String?) {
        self.engine = engine
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    public func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, context in await handle(request, context) }
        // The reCAPTCHA page's form posts the solved token back here (`authType=verifyApp`).
        router.post(RouterPath(stringLiteral: Self.path)) { request, context in await handle(request, context) }
        router.get(RouterPath(stringLiteral: AuthIframePage.path)) { request, context in
            await AuthIframePage(engine: engine).handle(request, context)
        }
    }

    func handle(_ request: Request, _ context: HearthRequestContext) async -> Response {
        do {
            let wire = try await WireRequest.decode(request, context: context)
            if try wire.string("authType") == "verifyApp" { return try await verifyApp(wire, request) }
            guard request.method == .get else { throw AuthError(.invalidArgument, "Only reCAPTCHA answers are posted here.") }
            // OAuth 2.0 returns `state`; Twitter's OAuth 1.0a `oauth_token` (or `denied` when the user declined).
            if try wire.string("providerId") == nil,
                let state = try wire.string("state") ?? wire.string("oauthToken") ?? wire.string("denied")
            {
                return try await providerReturned(wire, state: state)
            }
            return try await start(wire, request)
        } catch let error as AuthError {
            return Self.errorPage(.badRequest, error.message)
        } catch is StoreUnavailable {
            return Self.errorPage(.serviceUnavailable, "The service is unavailable. Try again in a moment.")
        } catch {
            return Self.errorPage(.internalServerError, "The sign-in could not continue.")
        }
    }

    /// Step 1. Until the redirect URL is known to be the app's, failures are a page; after that they go back to
    /// the app as `firebaseError`, as Firebase's handler reports them.
    func start(_ wire: WireRequest, _ request: Request) async throws -> Response {
        let (project, redirectURL) = try appTarget(wire)
        let web = try WebSignInStart(wire, redirectURL: redirectURL, sessionID: engine.randomToken(bytes: 32))
        do {
            guard let providerID = try wire.string("providerId"), !providerID.isEmpty else {
                throw AuthError(.invalidProviderID, "providerId is missing.")
            }
            let scopes = (try wire.string("scopes") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            var custom: [String: String] = [:]
            if let text = try wire.string("customParameters"), !text.isEmpty {
                guard let object = (try? JSONValue(parsing: text))?.objectValue else {
                    throw AuthError(.invalidArgument, "customParameters is not a JSON object.")
                }
                for (key, value) in object { custom[key] = value.stringValue ?? value.jsonText }
            }
            let origin = RequestOrigin(
                project: project, clientIP: wire.clientIP, locale: try wire.string("hl"), emulator: engine.isEmulator)
            // The web SDK has no session of its own here: the handler makes one and hands it over with the event.
            let sessionHash = try web.map { AuthEngine.webSessionHash($0.sessionID) } ?? wire.string("sessionId") ?? ""
            let authorization = try await engine.startBrowserSignIn(
                BrowserSignInStart(
                    providerID: providerID, sessionHash: sessionHash, redirectURL: redirectURL,
                    callbackURL: callbackURL(request), scopes: scopes, customParameters: custom),
                origin: origin)
            if let web { return webStartPage(web, authorization) }
            return Self.redirect(authorization.url)
        } catch let error as AuthError {
            if let web { return webEventPage(web.failure(Self.firebaseError(error)), to: web) }
            return Self.redirect(Self.appURL(redirectURL, error: Self.firebaseError(error)))
        }
    }

    /// The project (and tenant) the request is for, and the app's redirect URL, which must be the app's own callback
    /// or on an authorized domain; until both are known, failures are a page, never a redirect.
    func appTarget(_ wire: WireRequest) throws -> (ProjectConfig, String) {
        var project = try engine.projects.resolve(apiKey: try wire.string("apiKey") ?? wire.apiKey, pathProject: nil)
        if let tenant = try wire.string("tid"), !tenant.isEmpty {
            project = try engine.projects.tenant(tenant, of: project)
        }
        guard let redirectURL = try wire.string("redirectUrl"),
            engine.isAllowedSignInRedirect(redirectURL, project: project)
        else {
            throw AuthError(.unauthorizedDomain, "The redirect URL is not the app's and not on an authorized domain.")
        }
        return (project, redirectURL)
    }

    /// Step 2. The state is accepted once; the app gets the link, or the provider's refusal. A web page's sign-in
    /// (an `http(s)` redirect URL) returns through a page that finds the web SDK's start in this tab, if any.
    func providerReturned(_ wire: WireRequest, state: String) async throws -> Response {
        let providerError = try wire.string("error") ?? (try wire.string("denied")).map { _ in "access_denied" }
        let code = try wire.string("code") ?? wire.string("oauthVerifier")
        let failed = providerError != nil || code?.isEmpty ?? true
        let pending = try await engine.returnFromProvider(state: state, failed: failed)
        if failed {
            let reason = providerError ?? "no code"
            let description = try wire.string("error_description")
            let error: JSONValue =
                reason == "access_denied"
                ? ["code": "auth/web-context-canceled", "message": "The user did not grant access."]
                : [
                    "code": "auth/invalid-credential",
                    "message": .string(
                        "The provider refused the sign-in (\(reason))" + (description.map { ": \($0)" } ?? "")),
                ]
            let appLink = Self.appURL(pending.redirectURL, error: error)
            if Self.isWebPage(pending.redirectURL) {
                return webReturnPage(state: state, urlResponse: nil, error: error, appLink: appLink)
            }
            return Self.redirect(appLink)
        }
        let link = Self.appURL(pending.callbackURL, items: [("state", state), ("code", code ?? "")])
        let deepLink = Self.appURL(pending.callbackURL, items: [("authType", "signInWithRedirect"), ("link", link)])
        let appLink = Self.appURL(pending.redirectURL, items: [("deep_link_id", deepLink)])
        if Self.isWebPage(pending.redirectURL) {
            return webReturnPage(state: state, urlResponse: link, error: nil, appLink: appLink)
        }
        return Self.redirect(appLink)
    }

    /// Phone app verification's fallback (`authType=verifyApp`), what FirebaseAuth opens when no silent push
    /// proves the app: GET shows the project's reCAPTCHA v2 challenge; its callback posts the solved token here,
    /// and the handler hands it to the app as `deep_link_id` with `recaptchaToken` (checked with siteverify only
    /// when the app sends it with `sendVerificationCode`). Nothing is stored: the page only carries the token.
    func verifyApp(_ wire: WireRequest, _ request: Request) async throws -> Response {
        let (project, redirectURL) = try appTarget(wire)
        guard let siteKey = engine.recaptchaConfig(origin: RequestOrigin(project: project, clientIP: wire.clientIP)).siteKey
        else {
            return Self.redirect(
                Self.appURL(
                    redirectURL,
                    error: Self.firebaseError(AuthError(.operationNotAllowed, "This server has no reCAPTCHA site key."))))
        }
        let eventID = try wire.string("eventId") ?? ""
        if request.method == .post {
            // The widget names its field `g-recaptcha-response`.
            guard let token = try wire.string("g-recaptcha-response"), !token.isEmpty else {
                throw AuthError(.missingAppCredential, "The reCAPTCHA was not solved.")
            }
            let link = Self.appURL(
                callbackURL(request), items: [("authType", "verifyApp"), ("recaptchaToken", token), ("eventId", eventID)])
            return Self.redirect(Self.appURL(redirectURL, items: [("deep_link_id", link)]))
        }
        let nonce = engine.randomToken(bytes: 16)
        var hidden = [
            ("apiKey", try wire.string("apiKey") ?? ""), ("authType", "verifyApp"), ("redirectUrl", redirectURL),
            ("eventId", eventID),
        ]
        if let tenant = try wire.string("tid"), !tenant.isEmpty { hidden.append(("tid", tenant)) }
        let inputs = hidden.map {
            "<input type=\"hidden\" name=\"\(HTMLEscaping.escape($0.0))\" value=\"\(HTMLEscaping.escape($0.1))\">"
        }.joined()
        let body = """
            <p>Confirm you are not a robot to receive your sign-in code.</p>
            <form id="verify" method="post" action="\(Self.path)">\(inputs)
            <div class="g-recaptcha" data-sitekey="\(HTMLEscaping.escape(siteKey))" data-callback="hearthSolved"></div>
            <noscript><p class="error">This check needs JavaScript.</p></noscript></form>
            <script nonce="\(nonce)">function hearthSolved(){document.getElementById('verify').submit()}</script>
            <script nonce="\(nonce)" src="https://www.google.com/recaptcha/api.js" async defer></script>
            """
        // Google's widget: its script, frames and calls, and nothing else from anywhere.
        let policy =
            "default-src 'none'; script-src 'nonce-\(nonce)' https://www.google.com/recaptcha/ "
            + "https://www.gstatic.com/recaptcha/; frame-src https://www.google.com/recaptcha/ "
            + "https://recaptcha.google.com/recaptcha/; connect-src https://www.google.com/recaptcha/; "
            + "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        return PageLayout.response(
            .ok, PageLayout.html(language: try wire.string("hl") ?? "en", title: "Verify your app", body: body),
            contentSecurityPolicy: policy)
    }

    /// `<public base>/__/auth/handler`: the `redirect_uri` registered at the provider.
    func callbackURL(_ request: Request) -> String {
        if let publicURL { return publicURL + Self.path }
        return "http://\(request.head.authority ?? "localhost")\(Self.path)"
    }

    // MARK: Answers

    /// FirebaseAuth's error shape for the app: `{"code":"auth/…","message":…}`.
    static func firebaseError(_ error: AuthError) -> JSONValue {
        let code: String =
            switch error.code {
            case .operationNotAllowed: "auth/operation-not-allowed"
            case .invalidProviderID: "auth/invalid-provider-id"
            case .invalidAPIKey, .missingAPIKey: "auth/invalid-api-key"
            case .invalidIDPResponse: "auth/invalid-credential"
            case .invalidArgument: "auth/argument-error"
            case .tooManyAttemptsTryLater: "auth/too-many-requests"
            default: "auth/internal-error"
            }
        return ["code": .string(code), "message": .string(error.message)]
    }

    static func appURL(_ redirectURL: String, error: JSONValue) -> String {
        appURL(redirectURL, items: [("firebaseError", error.jsonText)])
    }

    /// `url` with query parameters appended, escaping all but unreserved characters (so a nested URL or JSON
    /// keeps its `&`, `=` and `+`).
    static func appURL(_ url: String, items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func escape(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s }
        let query = items.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
        return url + (url.contains("?") ? "&" : "?") + query
    }

    static func redirect(_ location: String) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .found, headers: headers)
    }

    static func errorPage(_ status: HTTPResponse.Status, _ message: String) -> Response {
        PageLayout.response(
            status,
            PageLayout.html(
                language: "en", title: "Sign-in could not continue",
                body: "<p id=\"message\">\(HTMLEscaping.escape(message))</p>"))
    }
}
