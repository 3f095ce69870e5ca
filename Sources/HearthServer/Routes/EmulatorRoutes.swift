import Foundation
import HearthCore
import HearthEngine
import HearthStore
import Hummingbird

/// The Firebase Auth Emulator's development routes (`/emulator/v1/…`), registered only in emulator
/// mode: they expose codes and wipe data, and must never be reachable on a production server.
struct EmulatorRoutes: Sendable {
    let engine: AuthEngine

    func register(on router: HearthRouter) {
        // The codes and the accounts of a project, and of each of its tenants.
        for scope in ["/emulator/v1/projects/{project}", "/emulator/v1/projects/{project}/tenants/{tenant}"] {
            registerScoped(scope, on: router)
        }
        router.get("/emulator/v1/projects/{project}/config") { _, context in
            WireResponse.json(Self.emulatorConfig(try project(context)))
        }
        router.patch("/emulator/v1/projects/{project}/config") { request, context in
            let project = try project(context)
            let wire = try await WireRequest.decode(request, context: context)
            var patch: [String: JSONValue] = [:]
            if let privacy = wire.fields["emailPrivacyConfig"] { patch["emailPrivacyConfig"] = privacy }
            if let duplicates = wire.fields["signIn"]?["allowDuplicateEmails"] {
                patch["signIn"] = ["allowDuplicateEmails": duplicates]
            }
            let updated = try await Self.asOwner(context) {
                try await engine.updateProjectSettings(
                    projectID: project.projectID, patch: patch, mask: ProjectSettingsUpdate.paths(presentIn: patch))
            }
            return WireResponse.json(Self.emulatorConfig(updated))
        }
        router.get("/emulator/action") { request, context in
            try await emailAction(request, try await WireRequest.decode(request, context: context))
        }
    }

    /// `/emulator/action`, where the emulator's e-mail links lead: it uses the code at once and answers in the
    /// Firebase Auth Emulator's words (JSON under `authEmulator`), or sends the browser on to the continue URL (for a
    /// sign-in link with the link's parameters, which the web SDK's `signInWithEmailLink` reads there).
    func emailAction(_ request: Request, _ wire: WireRequest) async throws -> Response {
        func answer(_ status: HTTPResponse.Status, _ fields: [String: JSONValue]) -> Response {
            WireResponse.json(["authEmulator": .object(fields)], status: status)
        }
        func onward(_ url: String?, adding extra: [URLQueryItem] = []) -> Response? {
            // http(s) only: the link is editable, and a javascript: target would run on the app's origin.
            guard let url, var components = URLComponents(string: url), ["http", "https"].contains(components.scheme)
            else { return nil }
            if !extra.isEmpty { components.queryItems = (components.queryItems ?? []) + extra }
            guard let target = components.string else { return nil }
            return Response(status: .seeOther, headers: [.location: target, .cacheControl: "no-store"])
        }
        func present(_ name: String) throws -> String? { try wire.string(name).flatMap { $0.isEmpty ? nil : $0 } }
        guard let apiKey = try present("apiKey") else {
            return answer(
                .badRequest,
                [
                    "error": "missing apiKey query parameter",
                    "instructions": "Please modify the URL to specify an apiKey, such as ...&apiKey=YOUR_API_KEY",
                ])
        }
        guard let code = try present("oobCode") else {
            return answer(
                .badRequest,
                [
                    "error": "missing oobCode query parameter",
                    "instructions": "Please modify the URL to specify an oobCode, such as ...&oobCode=YOUR_OOB_CODE",
                ])
        }
        var project = try engine.projects.resolve(apiKey: apiKey, pathProject: try present("projectId"))
        if let tenant = try present("tenantId") { project = try engine.projects.tenant(tenant, of: project) }
        let origin = RequestOrigin(
            project: project, clientIP: wire.clientIP, locale: try wire.string("lang"), emulator: true)
        let continueURL = try wire.string("continueUrl")
        // The code's purpose, without spending it; nil for an unknown, used or expired code.
        let kind = try? await engine.resetPassword(code: code, newPassword: nil, origin: origin).kind
        switch try wire.string("mode") {
        case "signIn":
            guard let continueURL else {
                return answer(
                    .badRequest,
                    [
                        "error": "Missing continueUrl query parameter",
                        "instructions": "To sign in, append &continueUrl=YOUR_APP_URL to the link.",
                    ])
            }
            let query = URLComponents(string: request.uri.description)?.queryItems ?? []
            if let next = onward(continueURL, adding: query.filter { $0.name != "continueUrl" }) { return next }
            return answer(.badRequest, ["error": "continueUrl must be an http or https URL"])
        case "resetPassword":
            guard kind == .passwordReset else {
                return answer(
                    .badRequest,
                    [
                        "error": "Your request to reset your password has expired or the link has already been used.",
                        "instructions": "Try resetting your password again.",
                    ])
            }
            guard let newPassword = try wire.string("newPassword"), newPassword != "NEW_PASSWORD_HERE" else {
                let template =
                    "http://\(request.head.authority ?? "localhost")\(request.uri)&newPassword=NEW_PASSWORD_HERE"
                return answer(
                    .badRequest,
                    [
                        "error": wire.fields["newPassword"] == nil
                            ? "missing newPassword query parameter"
                            : "newPassword must be something other than 'NEW_PASSWORD_HERE'",
                        "instructions": "To reset the password, send an HTTP GET request to the following URL.",
                        "instructions2": "You may use a web browser or any HTTP client, such as curl.",
                        "urlTemplate": .string(template),
                    ])
            }
            let (_, email, _) = try await engine.resetPassword(code: code, newPassword: newPassword, origin: origin)
            return onward(continueURL)
                ?? answer(.ok, ["success": "The password has been successfully updated.", "email": .string(email)])
        case let mode?:
            // What each mode applies, and the emulator's words for it.
            let modes: [String: (kind: EmailActionCode.Kind, purpose: String, success: String)] = [
                "verifyEmail": (.verifyEmail, "verify your email", "The email has been successfully verified."),
                "verifyAndChangeEmail": (
                    .verifyAndChangeEmail, "change your email", "The email has been successfully changed."
                ),
                "recoverEmail": (.recoverEmail, "revert your email", "The email has been successfully reset."),
                "revertSecondFactorAddition": (
                    .revertSecondFactorAddition, "remove the second factor", "The second factor has been removed."
                ),
            ]
            guard let action = modes[mode] else { return answer(.badRequest, ["error": "Invalid mode"]) }
            guard kind == action.kind, let (user, _) = try? await engine.applyEmailAction(code: code, origin: origin)
            else {
                return answer(
                    .badRequest,
                    [
                        "error": .string(
                            "Your request to \(action.purpose) has expired or the link has already been used."),
                        "instructions": "Try again to get a new link.",
                    ])
            }
            let field = action.kind == .verifyAndChangeEmail ? "newEmail" : "email"
            return onward(continueURL)
                ?? answer(.ok, ["success": .string(action.success), field: user.email.map(JSONValue.string) ?? .null])
        case nil:
            return answer(.badRequest, ["error": "Invalid mode"])
        }
    }

    func registerScoped(_ scope: String, on router: HearthRouter) {
        router.get(RouterPath("\(scope)/verificationCodes")) { _, context in
            let project = try project(context)
            return WireResponse.json(
                try await Self.verificationCodes(engine, projectID: project.projectID, unusedOnly: true))
        }
        router.get(RouterPath("\(scope)/oobCodes")) { _, context in
            let projectID = try project(context).projectID
            var codes: [JSONValue] = []
            // Spent and expired codes leave the listing, as in the Firebase Auth Emulator.
            for m in try await engine.emailOutbox(projectID: projectID) {
                guard let code = try await engine.liveActionCode(m.oobCode, projectID: projectID) else { continue }
                // The record names the account's address (the old one of a change) and the new one apart, as the
                // emulator's does; the message itself went to the new one.
                codes.append(
                    .compact([
                        "email": .string(code.email), "newEmail": .text(code.newEmail), "oobCode": .string(m.oobCode),
                        "oobLink": .string(m.oobLink), "requestType": .string(m.kind.rawValue),
                    ]))
            }
            return WireResponse.json(["oobCodes": .array(codes)])
        }
        router.delete(RouterPath("\(scope)/accounts")) { _, context in
            let project = try project(context)
            let count = try await Self.asOwner(context) { try await engine.deleteAllUsers(projectID: project.projectID) }
            context.logger.info(
                "emulator: all accounts deleted", metadata: ["project": "\(project.projectID)", "count": "\(count)"])
            return WireResponse.json([:])
        }
    }

    /// Runs a change of the emulator's development routes, which take no credentials, as the emulator's owner (the
    /// actor `Bearer owner` is too), so the audit log has it.
    static func asOwner<T: Sendable>(_ context: HearthRequestContext, _ body: () async throws -> T) async throws -> T {
        try await AuditActor.$current.withValue(
            AuditActor(kind: .emulatorOwner, id: "owner", clientAddress: context.clientIP), operation: body)
    }

    /// The project the path names, or its tenant when the path names one.
    func project(_ context: HearthRequestContext) throws -> ProjectConfig {
        let projectID = try context.parameters.require("project")
        guard let project = engine.projects.config(projectID) else {
            throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
        }
        guard let tenant = context.parameters.get("tenant") else { return project }
        return try engine.projects.tenant(tenant, of: project)
    }

    static func emulatorConfig(_ project: ProjectConfig) -> JSONValue {
        [
            "signIn": ["allowDuplicateEmails": .bool(project.federation.allowDuplicateEmails)],
            "usageMode": "DEFAULT",
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(project.emailEnumerationProtection)],
        ]
    }

    /// The development outbox as the emulator lists it.
    /// The SMS codes sent; with `unusedOnly`, as the emulator lists them, without the used and expired ones.
    static func verificationCodes(_ engine: AuthEngine, projectID: String, unusedOnly: Bool) async throws -> JSONValue {
        var codes: [JSONValue] = []
        for m in try await engine.smsOutbox(projectID: projectID) {
            if unusedOnly, try await !engine.livePhoneSession(m.sessionInfo) { continue }
            codes.append(
                ["phoneNumber": .string(m.phoneNumber), "sessionInfo": .string(m.sessionInfo), "code": .string(m.code)])
        }
        return ["verificationCodes": .array(codes)]
    }
}
