import HearthCore
import HearthEngine
import HearthStore
import Hummingbird

/// The Firebase Auth Emulator's development routes (`/emulator/v1/…`), registered only in emulator
/// mode: they expose codes and wipe data, and must never be reachable on a production server.
struct EmulatorRoutes: Sendable {
    let engine: AuthEngine

    func register(on router: Router<HearthRequestContext>) {
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
            let updated = try await engine.updateProjectSettings(
                projectID: project.projectID, patch: patch, mask: ProjectSettingsUpdate.paths(presentIn: patch))
            return WireResponse.json(Self.emulatorConfig(updated))
        }
    }

    func registerScoped(_ scope: String, on router: Router<HearthRequestContext>) {
        router.get(RouterPath("\(scope)/verificationCodes")) { _, context in
            let project = try project(context)
            return WireResponse.json(try await Self.verificationCodes(engine, projectID: project.projectID, unusedOnly: true))
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
            let count = try await engine.deleteAllUsers(projectID: project.projectID)
            context.logger.info(
                "emulator: all accounts deleted", metadata: ["project": "\(project.projectID)", "count": "\(count)"])
            return WireResponse.json([:])
        }
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
