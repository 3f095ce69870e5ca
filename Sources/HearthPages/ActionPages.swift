import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import HearthStore
import Hummingbird

/// Hearth's own e-mail action handler, `/__/auth/action`: the page a reset, verification, change, recovery,
/// second-factor removal or sign-in link opens. Server-rendered, no JavaScript.
///
/// A GET only looks at the code (`accounts:resetPassword` without a password, as checkActionCode does), so link
/// scanners cannot spend links; the form's POST uses it, through the same engine use cases as the JSON API. The
/// POST must carry a token bound by a server secret to the SameSite=Strict cookie the GET set (so a cookie the
/// client chose, or another site planted, matches no token it can make) and, when the browser sends one, an Origin
/// of this server.
public struct ActionPages: Sendable {
    let engine: AuthEngine
    static let path = "/__/auth/action"
    static let cookie = "hearth_action_csrf"

    public init(engine: AuthEngine) { self.engine = engine }

    public func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, context in await show(request, context) }
        router.post(RouterPath(stringLiteral: Self.path)) { request, context in await submit(request, context) }
    }

    /// The link's parameters, from the query (GET) or the form's hidden fields (POST).
    struct ActionLink {
        var mode: String
        var code: String?
        var apiKey: String?
        /// Set instead of `apiKey` for a project that accepts any key.
        var projectID: String?
        /// A tenant's link names its tenant.
        var tenantID: String?
        var continueURL: String?
        var lang: String?

        init(_ wire: WireRequest) throws {
            mode = try wire.string("mode") ?? ""
            code = try wire.string("oobCode")
            apiKey = try wire.string("apiKey") ?? wire.apiKey
            projectID = try wire.string("projectId")
            tenantID = try wire.string("tenantId")
            continueURL = try wire.string("continueUrl")
            lang = try wire.string("lang")
        }

        var kind: EmailActionCode.Kind? {
            switch mode {
            case "resetPassword": .passwordReset
            case "verifyEmail": .verifyEmail
            case "verifyAndChangeEmail": .verifyAndChangeEmail
            case "recoverEmail": .recoverEmail
            case "signIn": .emailSignIn
            case "revertSecondFactorAddition": .revertSecondFactorAddition
            default: nil
            }
        }
    }

    struct Page {
        var language: String
        var text: PageStrings
        /// The browser's anti-forgery cookie, and the token its forms carry (`AuthEngine.formToken`).
        var cookie: String
        var csrf: String
        var secure: Bool

        func render(_ status: HTTPResponse.Status = .ok, title: String, body: String) -> Response {
            PageLayout.response(
                status, PageLayout.html(language: language, title: title, body: body),
                setCookie: "\(ActionPages.cookie)=\(cookie); Path=/__/auth/; HttpOnly; SameSite=Strict"
                    + (secure ? "; Secure" : ""))
        }

        func invalid() -> Response {
            render(.badRequest, title: text.invalidTitle, body: "<p id=\"message\">\(e(text.invalidText))</p>")
        }

        func e(_ s: String) -> String { HTMLEscaping.escape(s) }

        func fill(_ s: String, email: String = "", newEmail: String = "") -> String {
            e(s).replacingOccurrences(of: "%EMAIL%", with: "<strong>\(e(email))</strong>")
                .replacingOccurrences(of: "%NEW_EMAIL%", with: "<strong>\(e(newEmail))</strong>")
        }

        /// A POST form back to this page carrying the link and the CSRF token.
        func form(_ link: ActionLink, fields: String, button: String) -> String {
            var hidden = ["mode": link.mode, "oobCode": link.code ?? "", "csrf": csrf]
            if let v = link.apiKey { hidden["apiKey"] = v }
            if let v = link.projectID { hidden["projectId"] = v }
            if let v = link.tenantID { hidden["tenantId"] = v }
            if let v = link.continueURL { hidden["continueUrl"] = v }
            if let v = link.lang { hidden["lang"] = v }
            let inputs = hidden.sorted { $0.key < $1.key }.map {
                "<input type=\"hidden\" name=\"\(e($0.key))\" value=\"\(e($0.value))\">"
            }.joined()
            return "<form method=\"post\" action=\"action\">\(inputs)\(fields)"
                + "<button id=\"submit\" type=\"submit\">\(e(button))</button></form>"
        }
    }

    func page(_ request: Request, _ link: ActionLink?) async -> Page {
        let (language, text) = PageStrings.forLanguage(link?.lang)
        let cookie = Self.cookieValue(request) ?? engine.newFormCookie()
        // Without a token (the signing keys out of reach) the form renders, and its POST is refused.
        let csrf = (try? await engine.formToken(page: Self.path, binding: cookie)) ?? ""
        let project = link.flatMap { try? self.project($0) }
        let secure = project.map { $0.emailActionURL.hasPrefix("https:") } ?? false
        return Page(language: language, text: text, cookie: cookie, csrf: csrf, secure: secure)
    }

    /// The project, and the tenant when the link names one, whose code the link carries.
    func project(_ link: ActionLink) throws -> ProjectConfig {
        let project = try engine.projects.resolve(apiKey: link.apiKey, pathProject: link.projectID)
        guard let tenant = link.tenantID else { return project }
        return try engine.projects.tenant(tenant, of: project)
    }

    /// The client's address comes from WireRequest, the one place that decides it (proxies included).
    func origin(_ link: ActionLink, _ wire: WireRequest) throws -> RequestOrigin {
        let project = try self.project(link)
        return RequestOrigin(project: project, clientIP: wire.clientIP, locale: link.lang, emulator: engine.isEmulator)
    }

    // MARK: GET: look, never use

    func show(_ request: Request, _ context: HearthRequestContext) async -> Response {
        guard let wire = try? await WireRequest.decode(request, context: context), let link = try? ActionLink(wire)
        else { return await page(request, nil).invalid() }
        let p = await page(request, link)
        guard let kind = link.kind, let code = link.code, let origin = try? origin(link, wire),
            let found = try? await engine.resetPassword(code: code, newPassword: nil, origin: origin),
            found.kind == kind
        else { return p.invalid() }
        let t = p.text
        switch kind {
        case .passwordReset:
            return resetForm(p, link, email: found.email, error: nil)
        case .verifyEmail:
            return p.render(
                title: t.verifyTitle,
                body: "<p>\(p.fill(t.verifyPrompt, email: found.email))</p>" + p.form(link, fields: "", button: t.confirm))
        case .verifyAndChangeEmail:
            return p.render(
                title: t.changeTitle,
                body: "<p>\(p.fill(t.changePrompt, newEmail: found.newEmail ?? ""))</p>"
                    + p.form(link, fields: "", button: t.confirm))
        case .recoverEmail:
            return p.render(
                title: t.recoverTitle,
                body: "<p>\(p.fill(t.recoverPrompt, email: found.email))</p>" + p.form(link, fields: "", button: t.confirm))
        case .revertSecondFactorAddition:
            return p.render(
                title: t.revertTitle,
                body: "<p>\(p.fill(t.revertPrompt, email: found.email))</p>" + p.form(link, fields: "", button: t.confirm))
        case .emailSignIn:
            // The app that asked for the link completes the sign-in (it knows the address); a web app gets the
            // link's parameters on its continue URL.
            var body = "<p id=\"message\">\(p.e(t.signInPrompt))</p>"
            if let next = continueLink(link, origin: origin, withCode: true) {
                body += "<a class=\"button\" id=\"continue\" href=\"\(p.e(next))\">\(p.e(t.continue))</a>"
            }
            return p.render(title: t.signInTitle, body: body)
        }
    }

    func resetForm(_ p: Page, _ link: ActionLink, email: String, error: String?) -> Response {
        let t = p.text
        let fields =
            (error.map { "<p class=\"error\" id=\"message\">\(p.e($0))</p>" } ?? "")
            + "<label for=\"newPassword\">\(p.e(t.newPassword))</label>"
            + "<input id=\"newPassword\" name=\"newPassword\" type=\"password\" autocomplete=\"new-password\" required>"
        return p.render(
            error == nil ? .ok : .badRequest, title: t.resetTitle,
            body: "<p>\(p.fill(t.resetPrompt, email: email))</p>" + p.form(link, fields: fields, button: t.save))
    }

    // MARK: POST: use the code

    func submit(_ request: Request, _ context: HearthRequestContext) async -> Response {
        guard let wire = try? await WireRequest.decode(request, context: context), let link = try? ActionLink(wire)
        else { return await page(request, nil).invalid() }
        let p = await page(request, link)
        guard
            Self.sameOrigin(
                request, project: try? project(link)),
            let sent = try? wire.string("csrf"), let cookie = Self.cookieValue(request),
            await engine.checkFormToken(sent, page: Self.path, binding: cookie)
        else {
            return p.render(.forbidden, title: p.text.invalidTitle, body: "<p id=\"message\">\(p.e(p.text.failed))</p>")
        }
        guard let kind = link.kind, kind != .emailSignIn, let code = link.code, let origin = try? origin(link, wire)
        else { return p.invalid() }
        let t = p.text
        do {
            let message: String
            switch kind {
            case .passwordReset:
                let password = (try? wire.string("newPassword")) ?? ""
                do {
                    _ = try await engine.resetPassword(code: code, newPassword: password, origin: origin)
                } catch let error as AuthError
                    where error.code == .weakPassword || error.code == .passwordDoesNotMeetRequirements
                {
                    // The code is still unused: ask again.
                    let found = try await engine.resetPassword(code: code, newPassword: nil, origin: origin)
                    return resetForm(p, link, email: found.email, error: t.weakPassword)
                }
                message = p.e(t.resetDone)
            default:
                let found = try await engine.resetPassword(code: code, newPassword: nil, origin: origin)
                guard found.kind == kind else { return p.invalid() }
                let (user, _) = try await engine.applyEmailAction(code: code, origin: origin)
                switch kind {
                case .verifyAndChangeEmail: message = p.fill(t.changeDone, newEmail: user.email ?? "")
                case .recoverEmail: message = p.fill(t.recoverDone, email: user.email ?? "")
                case .revertSecondFactorAddition: message = p.e(t.revertDone)
                default: message = p.e(t.verifyDone)
                }
            }
            var body = "<p id=\"message\">\(message)</p>"
            if let next = continueLink(link, origin: origin, withCode: false) {
                body += "<a class=\"button\" id=\"continue\" href=\"\(p.e(next))\">\(p.e(t.continue))</a>"
            }
            return p.render(title: Self.title(kind, t), body: body)
        } catch let error as AuthError where error.code == .invalidOobCode {
            return p.invalid()
        } catch {
            return p.render(.serviceUnavailable, title: Self.title(kind, t), body: "<p id=\"message\">\(p.e(t.failed))</p>")
        }
    }

    static func title(_ kind: EmailActionCode.Kind, _ t: PageStrings) -> String {
        switch kind {
        case .passwordReset: t.resetTitle
        case .verifyEmail: t.verifyTitle
        case .verifyAndChangeEmail: t.changeTitle
        case .recoverEmail: t.recoverTitle
        case .emailSignIn: t.signInTitle
        case .revertSecondFactorAddition: t.revertTitle
        }
    }

    /// The continue URL, only when it is on a domain the project authorizes (no open redirect); for a sign-in link
    /// with the link's parameters added, as Firebase's handler passes them on.
    func continueLink(_ link: ActionLink, origin: RequestOrigin, withCode: Bool) -> String? {
        guard let next = link.continueURL, engine.isAuthorizedContinueURL(next, project: origin.project),
            var components = URLComponents(string: next)
        else { return nil }
        if withCode {
            var items = components.queryItems ?? []
            items += [URLQueryItem(name: "mode", value: link.mode), URLQueryItem(name: "oobCode", value: link.code)]
            if let key = link.apiKey { items.append(URLQueryItem(name: "apiKey", value: key)) }
            if let id = link.projectID { items.append(URLQueryItem(name: "projectId", value: id)) }
            if let id = link.tenantID { items.append(URLQueryItem(name: "tenantId", value: id)) }
            if let lang = link.lang { items.append(URLQueryItem(name: "lang", value: lang)) }
            components.queryItems = items
        }
        return components.string
    }

    static func cookieValue(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookie, !parts[1].isEmpty { return String(parts[1]) }
            }
        }
        return nil
    }

    /// A browser's Origin, when sent, names this server (the Host it was reached at, or the project's action URL).
    static func sameOrigin(_ request: Request, project: ProjectConfig?) -> Bool {
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
        guard let url = URL(string: origin), let host = url.host else { return false }
        let authority = host + (url.port.map { ":\($0)" } ?? "")
        if let requestHost = request.head.authority, requestHost == authority { return true }
        if let action = project.flatMap({ URL(string: $0.emailActionURL) }), action.host == host, action.port == url.port {
            return true
        }
        return false
    }
}
