import Foundation
import HearthCore
import HearthEngine

/// Decides whether a request's `Authorization` header carries admin credentials, and for which project.
///
/// Accepted: an access token that Hearth's token endpoint issued to a live service-account key (the project
/// is the key's), and in emulator mode the Firebase Auth Emulator's `Bearer owner` (any configured project).
/// Anything else, end-user ID tokens included, is UNAUTHENTICATED.
struct AdminAuthenticator: Sendable {
    let engine: AuthEngine

    static let missingCredentials = AuthError(
        .unauthenticated,
        "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."
    )

    /// The project an admin request is for, and who is asking as the audit log names them (the service account's
    /// e-mail, or the emulator's owner), from `clientAddress`.
    func admin(authorization: String, pathProject: String?, clientAddress: String?) async throws
        -> (ProjectConfig, AuditActor)
    {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Self.missingCredentials }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        let projectID: String
        let actor: AuditActor
        // The Firebase Auth Emulator takes `owner` in any case, and any Google access token (`ya29.…`, which a
        // backend holding real credentials sends) as the owner too.
        if engine.isEmulator && (token.lowercased() == "owner" || token.hasPrefix("ya29.")) {
            projectID = pathProject ?? engine.projects.defaultProjectID
            actor = AuditActor(kind: .emulatorOwner, id: "owner", clientAddress: clientAddress)
        } else {
            let access = try await engine.authenticateAdmin(accessToken: token)
            if let pathProject, pathProject != access.projectID {
                throw AuthError(.permissionDenied, "The caller does not have permission")
            }
            projectID = access.projectID
            actor = AuditActor(kind: .serviceAccount, id: access.clientEmail, clientAddress: clientAddress)
        }
        guard let project = engine.projects.config(projectID) else {
            throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
        }
        return (project, actor)
    }
}
