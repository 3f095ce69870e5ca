import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthTokens
import Hummingbird

/// Registers every Identity Toolkit and Secure Token route under each spelling clients use:
/// the bare v1 path (`/v1/accounts:signUp`), the emulator's host-prefixed path
/// (`/identitytoolkit.googleapis.com/v1/accounts:signUp`), and the legacy v3 alias the iOS SDK calls
/// (`/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser`).
public struct AuthRoutes: Sendable {
    public let engine: AuthEngine
    let adminAuthenticator: AdminAuthenticator
    let lookupAnswers = LookupAnswers()

    public init(engine: AuthEngine) {
        self.engine = engine
        self.adminAuthenticator = AdminAuthenticator(engine: engine)
    }

    typealias Handler = @Sendable (WireRequest, RequestOrigin) async throws -> JSONValue
    /// A client handler that answers with its JSON already encoded (`lookupBody`).
    typealias EncodedHandler = @Sendable (WireRequest, RequestOrigin) async throws -> ByteBuffer

    /// A v1 `accounts:<name>` method, its v3 alias, and what it does for end users and for admins.
    /// A request with a bearer `Authorization` header is an admin request: it must carry admin credentials
    /// and runs `admin` (or `client` when the method has no admin form).
    struct AccountsMethod {
        let v1: String
        let v3: String?
        let client: Handler?
        var admin: Handler? = nil
        var allowsGet = false
        /// Answers end users in place of `client` when set (the admin form keeps `admin`).
        var encodedClient: EncodedHandler? = nil
    }

    public func register(on router: HearthRouter) {
        // Hummingbird's router tries a path's siblings in the order they were registered: the most frequent call first.
        let methods = [
            AccountsMethod(
                v1: "lookup", v3: "getAccountInfo", client: lookup, admin: adminLookup, encodedClient: lookupBody),
            AccountsMethod(v1: "signUp", v3: "signupNewUser", client: signUp, admin: adminCreate),
            AccountsMethod(v1: "signInWithPassword", v3: "verifyPassword", client: signInWithPassword),
            AccountsMethod(v1: "signInWithCustomToken", v3: "verifyCustomToken", client: signInWithCustomToken),
            AccountsMethod(v1: "update", v3: "setAccountInfo", client: update, admin: adminUpdate),
            AccountsMethod(v1: "delete", v3: "deleteAccount", client: delete, admin: adminDelete),
            AccountsMethod(v1: "createAuthUri", v3: "createAuthUri", client: createAuthURI),
            AccountsMethod(v1: "sendOobCode", v3: "getOobConfirmationCode", client: sendOobCode, admin: sendOobCode),
            AccountsMethod(v1: "resetPassword", v3: "resetPassword", client: resetPassword),
            AccountsMethod(v1: "signInWithEmailLink", v3: "emailLinkSignin", client: signInWithEmailLink),
            AccountsMethod(v1: "sendVerificationCode", v3: "sendVerificationCode", client: sendVerificationCode),
            AccountsMethod(v1: "verifyClient", v3: "verifyClient", client: verifyClient),
            // Google's API description names it so; the SDKs call `verifyClient`.
            AccountsMethod(v1: "verifyIosClient", v3: nil, client: verifyClient),
            AccountsMethod(v1: "signInWithPhoneNumber", v3: "verifyPhoneNumber", client: signInWithPhoneNumber),
            AccountsMethod(v1: "batchGet", v3: "downloadAccount", client: nil, admin: adminBatchGet, allowsGet: true),
            AccountsMethod(v1: "batchCreate", v3: "uploadAccount", client: nil, admin: adminBatchCreate),
            AccountsMethod(v1: "batchDelete", v3: nil, client: nil, admin: adminBatchDelete),
            AccountsMethod(v1: "query", v3: nil, client: nil, admin: adminQuery),
            AccountsMethod(v1: "signInWithIdp", v3: "verifyAssertion", client: signInWithIdp),
            AccountsMethod(v1: "signInWithGameCenter", v3: "signInWithGameCenter", client: signInWithGameCenter),
        ]
        for method in methods {
            for prefix in ["", "/identitytoolkit.googleapis.com"] {
                let paths: [(RouterPath, Bool)] =
                    [("\(prefix)/v1/accounts:\(method.v1)", false)]
                    + Self.scoped("\(prefix)/v1/projects/{project}/accounts:\(method.v1)").map { ($0, true) }
                for (path, hasProject) in paths {
                    router.post(path) { request, context in
                        try await respond(
                            request, context, hasProject: hasProject, method.client, admin: method.admin,
                            encodedClient: method.encodedClient)
                    }
                    if method.allowsGet {
                        router.get(path) { request, context in
                            try await respond(
                                request, context, hasProject: hasProject, method.client, admin: method.admin,
                                encodedClient: method.encodedClient)
                        }
                    }
                }
            }
            if let v3 = method.v3 {
                router.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/\(v3)") { request, context in
                    try await respond(
                        request, context, hasProject: false, method.client, admin: method.admin,
                        encodedClient: method.encodedClient)
                }
            }
        }
        for prefix in ["", "/identitytoolkit.googleapis.com"] {
            // The Admin SDKs' createUser posts to the collection itself.
            for path in Self.scoped("\(prefix)/v1/projects/{project}/accounts") {
                router.post(path) { request, context in
                    try await respond(request, context, hasProject: true, nil, admin: adminCreate)
                }
            }
            // The older name of `accounts:query` in Google's API description.
            router.post("\(prefix)/v1/projects/{project}:queryAccounts") { request, context in
                try await respond(request, context, hasProject: true, nil, admin: adminQuery)
            }
            router.get("\(prefix)/v2/defaultSupportedIdps") { request, context in
                try await respond(request, context, hasProject: false, nil, admin: defaultSupportedIdps)
            }
            for path in Self.scoped("\(prefix)/v1/projects/{project}:createSessionCookie") {
                router.post(path) { request, context in
                    try await respond(request, context, hasProject: true, nil, admin: createSessionCookie)
                }
            }
            registerTenants(prefix: prefix, on: router)
            for kind in [IdentityProviderConfigs.Kind.builtIn, .oidc] {
                registerIdentityProviderConfigs(kind, prefix: prefix, on: router)
            }
            registerSAMLProviderConfigs(prefix: prefix, on: router)
            router.get("\(prefix)/v2/projects/{project}/config") { request, context in
                try await respond(request, context, hasProject: true, nil, admin: adminGetConfig)
            }
            router.patch("\(prefix)/v2/projects/{project}/config") { request, context in
                try await respond(request, context, hasProject: true, nil, admin: adminUpdateConfig)
            }
            for path in Self.scoped("\(prefix)/v2/projects/{project}/passkeyConfig") {
                router.get(path) { request, context in
                    try await respond(request, context, hasProject: true, nil, admin: adminGetPasskeyConfig)
                }
                router.patch(path) { request, context in
                    try await respond(request, context, hasProject: true, nil, admin: adminUpdatePasskeyConfig)
                }
            }
        }
        // Legacy v3 admin methods with no v1 name.
        router.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/setProjectConfig") { request, context in
            try await respond(request, context, hasProject: false, nil, admin: adminSetProjectConfig)
        }
        router.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser") { request, context in
            try await respond(request, context, hasProject: false, nil, admin: adminSignOutUser)
        }
        // Hearth's own admin route: the development outbox's messages, for tests against a non-emulator server.
        router.get("/hearth/v1/projects/{project}/smsOutbox") { request, context in
            try await respond(request, context, hasProject: true, nil, admin: adminSMSOutbox)
        }

        for path: RouterPath in [
            "/v1/projects", "/identitytoolkit.googleapis.com/v1/projects",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig",
        ] {
            router.get(path) { request, context in try await respond(request, context, hasProject: false, projectConfig)
            }
            router.post(path) { request, context in
                try await respond(request, context, hasProject: false, projectConfig)
            }
        }
        registerAppleNotifications(on: router)
        registerMultiFactor(on: router)
        registerAuditRoutes(on: router)
        registerPasskeys(on: router)
        PasskeyAssociationRoutes(engine: engine).register(on: router)
        for prefix in ["", "/identitytoolkit.googleapis.com"] {
            router.post("\(prefix)/v2/accounts:revokeToken") { request, context in
                try await respond(request, context, hasProject: false, revokeToken)
            }
            router.get("\(prefix)/v2/recaptchaConfig") { request, context in
                try await respond(request, context, hasProject: false, recaptchaConfig)
            }
            router.get("\(prefix)/v2/passwordPolicy") { request, context in
                try await respond(request, context, hasProject: false, passwordPolicy)
            }
            router.get("\(prefix)/v1/recaptchaParams") { request, context in
                try await respond(request, context, hasProject: false, recaptchaParams)
            }
        }
        router.get("/www.googleapis.com/identitytoolkit/v3/relyingparty/getRecaptchaParam") { request, context in
            try await respond(request, context, hasProject: false, recaptchaParams)
        }
        for path: RouterPath in ["/v1/token", "/securetoken.googleapis.com/v1/token"] {
            router.post(path) { request, context in try await respond(request, context, hasProject: false, token) }
        }
    }

    static let firebaseLocale = HTTPField.Name("X-Firebase-Locale")!

    /// A project-scoped path and the same path under one of the project's tenants (`/tenants/{tenant}`).
    static func scoped(_ path: String) -> [RouterPath] {
        [RouterPath(path), RouterPath(path.replacingOccurrences(of: "{project}", with: "{project}/tenants/{tenant}"))]
    }

    /// Decode → resolve the project (from admin credentials, or from the API key) and the tenant → run the use
    /// case → encode. A tenant with `disableAuth` refuses every call on its users, its admins' too
    /// (PROJECT_DISABLED); `configuresTenant` routes (the tenant and its providers) stay open to admins, so it can be
    /// turned back on.
    func respond(
        _ request: Request, _ context: HearthRequestContext, hasProject: Bool, _ client: Handler?,
        configuresTenant: Bool = false, admin: Handler? = nil, encodedClient: EncodedHandler? = nil
    ) async throws -> Response {
        let wire = try await WireRequest.decode(request, context: context)
        let pathProject = hasProject ? try context.parameters.require("project") : nil
        let pathTenant = context.parameters.get("tenant")
        let locale = wire.headers.value(Self.firebaseLocale)
        // Only a bearer credential makes an admin request; another scheme (Basic…) is ignored, as Google ignores it.
        if let authorization = wire.headers.value(.authorization), authorization.lowercased().hasPrefix("bearer") {
            let (keyProject, actor) = try await adminAuthenticator.admin(
                authorization: authorization, pathProject: pathProject, clientAddress: wire.clientIP)
            let project = try scoped(keyProject, pathTenant: pathTenant, wire: wire)
            guard let handler = admin ?? client else { throw AuthError(.notFound, "Not Found") }
            if !configuresTenant, project.tenant?.disableAuth == true { throw AuthError(.projectDisabled) }
            var origin = RequestOrigin(
                project: project, clientIP: wire.clientIP, locale: locale, isAdmin: true, emulator: engine.isEmulator,
                userAgent: wire.headers.value(.userAgent))
            origin.emulatorLinks = emulatorLinks(request, wire, project)
            // The engine's use cases record their audit events with it.
            return try await AuditActor.$current.withValue(actor) { WireResponse.json(try await handler(wire, origin)) }
        }
        guard let client else { throw AdminAuthenticator.missingCredentials }
        if try wire.string("targetProjectId") != nil {
            throw AuthError(.insufficientPermission, "Only authenticated requests can specify target_project_id.")
        }
        let project = try scoped(
            try engine.projects.resolve(apiKey: wire.apiKey, pathProject: pathProject), pathTenant: pathTenant, wire: wire)
        if project.tenant?.disableAuth == true { throw AuthError(.projectDisabled) }
        var origin = RequestOrigin(
            project: project, clientIP: wire.clientIP, locale: locale, emulator: engine.isEmulator,
            userAgent: wire.headers.value(.userAgent))
        origin.emulatorLinks = emulatorLinks(request, wire, project)
        if let encodedClient { return WireResponse.json(encoded: try await encodedClient(wire, origin)) }
        return WireResponse.json(try await client(wire, origin))
    }

    /// In emulator mode, e-mail links open the emulator's `/emulator/action` on the host this request reached.
    func emulatorLinks(_ request: Request, _ wire: WireRequest, _ project: ProjectConfig) -> EmulatorLinks? {
        guard engine.isEmulator, let host = request.head.authority else { return nil }
        return EmulatorLinks(
            baseURL: "http://\(host)", apiKey: wire.apiKey,
            namesProject: project.firebaseProjectID != engine.projects.defaultProjectID)
    }

    /// The tenant a request is for: the path's `{tenant}` or the body's `tenantId` (which must agree), or else the
    /// tenant named by the ID token it carries, as the Firebase emulator infers it. The token's signature and its
    /// tenant are checked later, against this scope, wherever the token is used.
    func scoped(_ project: ProjectConfig, pathTenant: String?, wire: WireRequest) throws -> ProjectConfig {
        let bodyTenant = try wire.string("tenantId").flatMap { $0.isEmpty ? nil : $0 }
        if let pathTenant, let bodyTenant, pathTenant != bodyTenant { throw AuthError(.tenantIDMismatch) }
        var tenant = pathTenant ?? bodyTenant
        if let idToken = try? wire.string("idToken"), let tokenTenant = engine.idTokens.peekTenant(idToken) {
            if let tenant, tenant != tokenTenant { throw AuthError(.tenantIDMismatch) }
            tenant = tokenTenant
        }
        guard let tenant else { return project }
        return try engine.projects.tenant(tenant, of: project)
    }
}
