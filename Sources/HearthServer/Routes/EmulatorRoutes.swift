import HearthCore
import HearthEngine
import Hummingbird

/// The Firebase Auth Emulator's development routes (`/emulator/v1/…`), registered only in emulator
/// mode: they expose codes and must never be reachable on a production server.
struct EmulatorRoutes: Sendable {
    let engine: AuthEngine

    func register(on router: Router<HearthRequestContext>) {
        router.get("/emulator/v1/projects/{project}/verificationCodes") { _, context in
            let projectID = try context.parameters.require("project")
            guard engine.projects.config(projectID) != nil else {
                throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
            }
            let messages = try await engine.store.outbox(projectID: projectID)
            let codes: [JSONValue] = messages.map {
                [
                    "phoneNumber": .string($0.phoneNumber), "sessionInfo": .string($0.sessionInfo),
                    "code": .string($0.code),
                ]
            }
            return WireResponse.json(["verificationCodes": .array(codes)])
        }
    }
}
