import HearthCore
import HearthStore

/// Sessions as first-class records for operators (admin API, console): a user's live refresh-token families, and
/// ending exactly one of them.
extension AuthEngine {
    /// The user's live sessions, oldest first; USER_NOT_FOUND for an unknown uid.
    public func sessions(of uid: String, origin: RequestOrigin) async throws -> [SessionSummary] {
        let projectID = origin.project.projectID
        guard !uid.isEmpty, try await store.user(projectID: projectID, uid: uid) != nil else {
            throw AuthError(.userNotFound)
        }
        return try await store.sessions(projectID: projectID, uid: uid)
    }

    /// Ends one session of the user: its next refresh answers TOKEN_EXPIRED, the user's other sessions live on.
    /// A session id that is not one of this user's live sessions is NOT_FOUND, and nothing is ended.
    public func endSession(_ sessionID: String, of uid: String, origin: RequestOrigin) async throws {
        let projectID = origin.project.projectID
        try await audited("session.revoke", scope: projectID, targetUID: uid) { change in
            change.before = ["sessionId": .string(sessionID)]
            guard
                try await store.revokeRefreshFamily(
                    projectID: projectID, uid: uid, familyID: sessionID, reason: .revoked, at: clock.now())
            else { throw AuthError(.notFound) }
            change.after = ["sessionId": .string(sessionID), "revoked": true]
        }
    }
}
