import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import Hummingbird

/// Where the console may be reached and what it manages.
public struct ConsoleSettings: Sendable {
    /// The origin operators reach the operator listener at through a proxy (`https://admin.example.com`), allowed
    /// besides the loopback names; nil: loopback only.
    public var publicOrigin: String?
    /// The project whose users the console shows.
    public var projectID: String

    public init(publicOrigin: String?, projectID: String) {
        self.publicOrigin = publicOrigin
        self.projectID = projectID
    }
}

/// The operator's console, `/console/` on the operator listener only: server-rendered pages over the same engine
/// use cases as the admin API, each change made inside `AuditActor.$current` for the signed-in console admin.
///
/// Every request passes `ConsoleVisit.begin`: the Host must be a loopback name or the configured public origin
/// (DNS rebinding), bearer credentials of any kind are refused, and a POST must come from the console's own
/// origin and carry the anti-forgery token bound to the browser's console cookie.
public struct Console: Sendable {
    let engine: AuthEngine
    let settings: ConsoleSettings
    static let csrfPurpose = "/console/"

    public init(engine: AuthEngine, settings: ConsoleSettings) {
        self.engine = engine
        self.settings = settings
    }

    public func register(on router: Router<HearthRequestContext>) {
        router.get("/console/style.css") { request, context in
            guard ConsoleVisit.hostAllowed(request, settings) else { return ConsoleVisit.wrongHost() }
            var headers = ConsoleLayout.headers(setCookies: [])
            headers[.contentType] = "text/css; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: ConsoleLayout.stylesheet)))
        }
        router.get("/console") { request, context in await page(request, context, signedIn: false) { _ in .redirect("/console/users") } }
        let signIn = ConsoleSignInPages(console: self)
        router.get("/console/sign-in") { request, context in await page(request, context, signedIn: false, signIn.show) }
        router.post("/console/sign-in") { request, context in await page(request, context, signedIn: false, signIn.password) }
        router.post("/console/sign-in/code") { request, context in await page(request, context, signedIn: false, signIn.code) }
        router.post("/console/sign-out") { request, context in await page(request, context, signedIn: false, signIn.signOut) }
        router.get("/console/setup") { request, context in await page(request, context, signedIn: false, signIn.setup) }
        router.post("/console/setup") { request, context in await page(request, context, signedIn: false, signIn.completeSetup) }
        let users = ConsoleUserPages(console: self)
        router.get("/console/users") { request, context in await page(request, context, signedIn: true, users.search) }
        router.get("/console/users/new") { request, context in await page(request, context, signedIn: true, users.newUser) }
        router.post("/console/users/new") { request, context in await page(request, context, signedIn: true, users.create) }
        router.get("/console/users/:uid") { request, context in
            await page(request, context, signedIn: true) { try await users.show($0, uid: context.parameters.get("uid") ?? "") }
        }
        let audit = ConsoleAuditPages(console: self)
        router.get("/console/audit") { request, context in await page(request, context, signedIn: true, audit.show) }
        router.get("/console/audit.csv") { request, context in await page(request, context, signedIn: true, audit.csv) }
        router.post("/console/users/:uid") { request, context in
            await page(request, context, signedIn: true) { try await users.act($0, uid: context.parameters.get("uid") ?? "") }
        }
        let settingsPages = ConsoleSettingsPages(console: self)
        router.get("/console/settings") { request, context in await page(request, context, signedIn: true, settingsPages.show) }
        router.post("/console/settings") { request, context in await page(request, context, signedIn: true, settingsPages.save) }
        let activity = ConsoleActivityPages(console: self)
        router.get("/console/activity") { request, context in await page(request, context, signedIn: true, activity.show) }
        let development = ConsoleDevelopmentPages(console: self)
        router.get("/console/development") { request, context in
            await page(request, context, signedIn: true, development.show)
        }
        router.post("/console/development/clear") { request, context in
            await page(request, context, signedIn: true, development.clear)
        }
    }

    /// What a handler answers: a page, or a redirect to another console path.
    enum Answer {
        case page(HTTPResponse.Status, title: String, HTML)
        case redirect(String)
        case response(Response)
    }

    func page(
        _ request: Request, _ context: HearthRequestContext, signedIn: Bool,
        _ handler: @Sendable (ConsoleVisit) async throws -> Answer
    ) async -> Response {
        let visit: ConsoleVisit
        switch await ConsoleVisit.begin(request, context, console: self, signedIn: signedIn) {
        case .success(let begun): visit = begun
        case .failure(let refusal): return refusal.response
        }
        let answer: Answer
        do {
            answer = try await handler(visit)
        } catch let error as AuthError {
            answer = .page(
                HTTPResponse.Status(code: error.code.httpStatus), title: "Something went wrong",
                "<p class=\"error\" role=\"alert\">\(error.message)</p>")
        } catch {
            answer = .page(.internalServerError, title: "Something went wrong", "<p class=\"error\" role=\"alert\">The request failed.</p>")
        }
        switch answer {
        case .page(let status, let title, let body):
            return ConsoleLayout.response(
                status,
                ConsoleLayout.page(
                    title: title, admin: visit.admin?.email, csrf: visit.csrf, body: body,
                    development: hasDevelopmentPage),
                setCookies: visit.setCookies)
        case .redirect(let path):
            return ConsoleLayout.redirect(path, setCookies: visit.setCookies)
        case .response(var response):
            for cookie in visit.setCookies { response.headers.append(HTTPField(name: .setCookie, value: cookie)) }
            return response
        }
    }

    /// The Development page exists: in emulator mode, or when SMS or e-mail go to the development outbox.
    var hasDevelopmentPage: Bool { engine.isEmulator || engine.usesDevelopmentOutbox }

    /// The project the console manages, as an admin of it.
    func origin(_ visit: ConsoleVisit) throws(AuthError) -> RequestOrigin {
        guard let project = engine.projects.config(settings.projectID) ?? engine.projects.all.first else {
            throw AuthError(.invalidProjectID)
        }
        return RequestOrigin(
            project: project, clientIP: visit.clientIP, isAdmin: true, emulator: engine.isEmulator,
            userAgent: visit.userAgent)
    }

    /// The project, or the tenant the visit's `tenant` names (the Settings and Users pages' picker);
    /// TENANT_NOT_FOUND (404) for one the project does not have.
    func scope(_ visit: ConsoleVisit) throws -> RequestOrigin {
        var origin = try origin(visit)
        let tenant = visit.field("tenant")
        guard !tenant.isEmpty else { return origin }
        let key = TenantScope.key(project: origin.project.firebaseProjectID, tenant: tenant)
        // Never `projects.tenant(_:of:)`, which in emulator mode makes a tenant of any name it is asked for.
        guard let config = engine.projects.config(key), config.tenant != nil else {
            throw AuthError(.tenantNotFound, "There is no tenant \(tenant) in this project.")
        }
        origin.project = config
        return origin
    }

    /// `tenant=T&`, for a link that keeps a tenant's scope; empty for the project.
    static func tenantQuery(_ origin: RequestOrigin) -> String {
        origin.project.tenantID.map { "tenant=\(ConsoleUserPages.percentEncoded($0))&" } ?? ""
    }

    /// The project's tenants (the admin API's tenant list), by id, with their display names, for the pickers.
    func tenants(_ visit: ConsoleVisit) throws -> [(id: String, name: String)] {
        let listed = try engine.listTenants(pageSize: AuthEngine.maxTenantPageSize, pageToken: nil, origin: try origin(visit))
        return (listed["tenants"]?.arrayValue ?? []).compactMap { tenant in
            guard let id = tenant["tenantId"]?.stringValue else { return nil }
            return (id, tenant["displayName"]?.stringValue.map { "\($0) (\(id))" } ?? id)
        }
    }

    /// A form of its own that shows `page` for one tenant (the Settings and Activity pages); nothing when the project
    /// has no tenants.
    func tenantPicker(_ visit: ConsoleVisit, page: String, label: String, selected: String?) throws -> HTML {
        let tenants = try tenants(visit)
        guard !tenants.isEmpty else { return "" }
        return """
            <form method="get" action="\(page)" role="search" aria-label="Tenant">
            <label for="tenant">\(label)</label><select id="tenant" name="tenant">\(Self.tenantOptions(tenants, selected: selected))</select>
            <button type="submit" id="show-tenant">Show</button></form>
            """
    }

    /// The options of a tenant picker: the project first, `selected` chosen.
    static func tenantOptions(_ tenants: [(id: String, name: String)], selected: String?) -> [HTML] {
        ["<option value=\"\"\(selected == nil ? HTML(" selected") : "")>The project</option>"]
            + tenants.map { "<option value=\"\($0.id)\"\($0.id == selected ? HTML(" selected") : "")>\($0.name)</option>" }
    }

    /// Runs a change as the signed-in admin, so the engine's audit event names them.
    func asAdmin<T: Sendable>(_ visit: ConsoleVisit, _ body: () async throws -> T) async throws -> T {
        guard let admin = visit.admin else { throw AuthError(.unauthenticated) }
        guard admin.role == .admin else {
            throw AuthError(.permissionDenied, "Viewers can look but not change anything.")
        }
        return try await AuditActor.$current.withValue(
            AuditActor(kind: .consoleAdmin, id: admin.email, clientAddress: visit.clientIP), operation: body)
    }
}
