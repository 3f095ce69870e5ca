import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import Hummingbird

/// Registers every Identity Toolkit and Secure Token route under each spelling clients use:
/// the bare v1 path (`/v1/accounts:signUp`), the emulator's host-prefixed path
/// (`/identitytoolkit.googleapis.com/v1/accounts:signUp`), and the legacy v3 alias the iOS SDK calls
/// (`/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser`).
public struct AuthRoutes: Sendable {
    public let engine: AuthEngine
    /// `hearth serve --emulator`: requests carry emulator mode to the engine (unsigned provider tokens).
    public let emulator: Bool

    public init(engine: AuthEngine, emulator: Bool = false) {
        self.engine = engine
        self.emulator = emulator
    }

    typealias Handler = @Sendable (WireRequest, RequestOrigin) async throws -> JSONValue

    /// A v1 `accounts:<name>` method and its v3 alias.
    struct AccountsMethod {
        let v1: String
        let v3: String?
        let handler: Handler
    }

    public func register(on router: Router<HearthRequestContext>) {
        let methods = [
            AccountsMethod(v1: "signUp", v3: "signupNewUser", handler: signUp),
            AccountsMethod(v1: "signInWithPassword", v3: "verifyPassword", handler: signInWithPassword),
            AccountsMethod(v1: "lookup", v3: "getAccountInfo", handler: lookup),
            AccountsMethod(v1: "update", v3: "setAccountInfo", handler: update),
            AccountsMethod(v1: "delete", v3: "deleteAccount", handler: delete),
            AccountsMethod(v1: "createAuthUri", v3: "createAuthUri", handler: createAuthURI),
            AccountsMethod(v1: "sendVerificationCode", v3: "sendVerificationCode", handler: sendVerificationCode),
            AccountsMethod(v1: "signInWithPhoneNumber", v3: "verifyPhoneNumber", handler: signInWithPhoneNumber),
            AccountsMethod(v1: "signInWithIdp", v3: "verifyAssertion", handler: signInWithIdp),
        ]
        for method in methods {
            let handler = method.handler
            for prefix in ["", "/identitytoolkit.googleapis.com"] {
                router.post("\(prefix)/v1/accounts:\(method.v1)") { request, context in
                    try await respond(request, context, pathProject: nil, handler)
                }
                router.post("\(prefix)/v1/projects/{project}/accounts:\(method.v1)") { request, context in
                    try await respond(request, context, pathProject: context.parameters.get("project"), handler)
                }
            }
            if let v3 = method.v3 {
                router.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/\(v3)") { request, context in
                    try await respond(request, context, pathProject: nil, handler)
                }
            }
        }

        for path: RouterPath in [
            "/v1/projects", "/identitytoolkit.googleapis.com/v1/projects",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig",
        ] {
            router.get(path) { request, context in try await respond(request, context, pathProject: nil, projectConfig)
            }
            router.post(path) { request, context in try await respond(request, context, pathProject: nil, projectConfig)
            }
        }
        registerAppleNotifications(on: router)
        for prefix in ["", "/identitytoolkit.googleapis.com"] {
            router.post("\(prefix)/v2/accounts:revokeToken") { request, context in
                try await respond(request, context, pathProject: nil, revokeToken)
            }
        }
        for path: RouterPath in ["/v1/token", "/securetoken.googleapis.com/v1/token"] {
            router.post(path) { request, context in try await respond(request, context, pathProject: nil, token) }
        }
    }

    /// Decode → resolve the project from the API key → run the use case → encode.
    func respond(_ request: Request, _ context: HearthRequestContext, pathProject: String?, _ handler: Handler)
        async throws -> Response
    {
        let wire = try await WireRequest.decode(request, context: context)
        let project = try engine.projects.resolve(apiKey: wire.apiKey, pathProject: pathProject)
        let origin = RequestOrigin(
            project: project, clientIP: wire.clientIP, locale: wire.headers[HTTPField.Name("X-Firebase-Locale")!],
            emulator: emulator)
        return WireResponse.json(try await handler(wire, origin))
    }
}
