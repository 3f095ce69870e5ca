import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import HearthStore
import Hummingbird

/// One request to the console once it has passed the console's checks: who is signed in, the anti-forgery token
/// its forms carry, the decoded query or form, and cookies to set.
struct ConsoleVisit: Sendable {
    var admin: ConsoleAdmin?
    /// The browser's console cookie, to which the anti-forgery token is bound (SameSite=Strict, HttpOnly).
    var browserCookie: String
    var csrf: String
    var form: WireRequest
    var clientIP: String?
    var userAgent: String?
    /// Served to the configured https public origin: `__Host-` cookie names and `Secure`.
    var secure: Bool
    var setCookies: [String] = []
    /// The session cookie as the browser sent it (signed in or not).
    var sessionCookie: String?

    func field(_ name: String) -> String { (try? form.string(name)) ?? "" }

    static func cookieName(_ name: String, secure: Bool) -> String { secure ? "__Host-\(name)" : name }

    /// A cookie for the console's host only (no Domain), on every path, unreadable by scripts.
    static func cookie(_ name: String, _ value: String, secure: Bool, maxAge: Int? = nil) -> String {
        "\(cookieName(name, secure: secure))=\(value); Path=/; HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "") + (maxAge.map { "; Max-Age=\($0)" } ?? "")
    }

    static let browserCookieName = "hearth_console_browser"
    static let sessionCookieName = "hearth_console_session"

    struct Refusal: Error {
        var response: Response
    }

    // MARK: Checks

    /// The names the listener answers to: loopback, and the public origin's host when one is configured. Anything
    /// else is a name an attacker pointed at this address (DNS rebinding) or a mistake.
    static func hostAllowed(_ request: Request, _ settings: ConsoleSettings) -> Bool {
        guard let host = request.head.authority, !host.isEmpty else { return false }
        if let authority = publicAuthority(settings), host.lowercased() == authority { return true }
        let name: Substring
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { return false }
            name = host[...end]
            let rest = host[host.index(after: end)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return false }
        } else {
            let parts = host.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2, parts.count == 1 || parts[1].allSatisfy(\.isNumber) else { return false }
            name = parts[0]
        }
        return ["localhost", "127.0.0.1", "[::1]"].contains(name.lowercased())
    }

    /// `host[:port]` of the configured public origin, lower-cased.
    static func publicAuthority(_ settings: ConsoleSettings) -> String? {
        guard let url = settings.publicOrigin.flatMap(URL.init(string:)), let name = url.host else { return nil }
        return (url.port.map { "\(name):\($0)" } ?? name).lowercased()
    }

    static func wrongHost() -> Response {
        ConsoleLayout.plain(.misdirectedRequest, "This console answers only to its configured host names.\n")
    }

    /// The origin a browser on this console sends with its POSTs.
    static func expectedOrigin(_ request: Request, _ settings: ConsoleSettings, secure: Bool) -> String? {
        guard let host = request.head.authority else { return nil }
        if secure, let publicOrigin = settings.publicOrigin { return publicOrigin.trimmingSuffix("/") }
        return "http://\(host)"
    }

    static func begin(
        _ request: Request, _ context: HearthRequestContext, console: Console, signedIn: Bool
    ) async -> Result<ConsoleVisit, Refusal> {
        let settings = console.settings
        let engine = console.engine
        guard hostAllowed(request, settings) else { return .failure(Refusal(response: wrongHost())) }
        // The console's own cookie is its only credential: ID tokens, custom tokens and service-account bearers
        // mean a client of another API, never an operator.
        if request.headers[.authorization] != nil {
            return .failure(
                Refusal(response: ConsoleLayout.plain(.unauthorized, "The console takes no bearer credentials.\n")))
        }
        let host = (request.head.authority ?? "").lowercased()
        let secure = settings.publicOrigin?.hasPrefix("https://") == true && host == publicAuthority(settings)
        guard let form = try? await WireRequest.decode(request, context: context) else {
            return .failure(Refusal(response: ConsoleLayout.plain(.badRequest, "The request could not be read.\n")))
        }
        var visit = ConsoleVisit(
            admin: nil, browserCookie: "", csrf: "", form: form, clientIP: context.clientIP,
            userAgent: request.headers[.userAgent], secure: secure)
        if let cookie = request.cookies[cookieName(browserCookieName, secure: secure)]?.value, cookie.count >= 16 {
            visit.browserCookie = cookie
        } else {
            visit.browserCookie = engine.newFormCookie()
            visit.setCookies.append(self.cookie(browserCookieName, visit.browserCookie, secure: secure))
        }
        visit.csrf = (try? await engine.formToken(page: Console.csrfPurpose, binding: visit.browserCookie)) ?? ""
        if request.method == .post {
            // A form posted from anywhere else changes nothing: its Origin is another site's (or absent), and it
            // cannot know the token bound to this browser's cookie.
            guard let origin = request.headers[HTTPField.Name("Origin")!],
                origin == expectedOrigin(request, settings, secure: secure),
                let token = try? form.string("csrf"),
                await engine.checkFormToken(token, page: Console.csrfPurpose, binding: visit.browserCookie)
            else {
                return .failure(
                    Refusal(
                        response: ConsoleLayout.response(
                            .forbidden,
                            ConsoleLayout.page(
                                title: "Request refused", admin: nil, csrf: "",
                                body: "<p class=\"error\" role=\"alert\">This form did not come from this console. Open the page again and retry.</p>"
                            ), setCookies: visit.setCookies)))
            }
        }
        visit.sessionCookie = request.cookies[cookieName(sessionCookieName, secure: secure)]?.value
        if let session = visit.sessionCookie {
            visit.admin = try? await engine.consoleSession(cookie: session)
        }
        if signedIn && visit.admin == nil {
            return .failure(Refusal(response: ConsoleLayout.redirect("/console/sign-in", setCookies: visit.setCookies)))
        }
        return .success(visit)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
