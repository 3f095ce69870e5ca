import Foundation
import HearthCore
import HearthProviders
import HearthStore
import Logging

extension AuthEngine {
    /// Applies one of Apple's server-to-server notifications: `consent-revoked` unlinks apple.com from the user,
    /// `account-delete` disables or deletes the user (the project's `apple.onAccountDelete`); e-mail relay
    /// changes need nothing. A delivery Apple repeats is acknowledged without acting twice.
    public func handleAppleNotification(payload: String?, project: ProjectConfig) async throws {
        guard let payload, !payload.isEmpty else { throw AuthError(.invalidIDPResponse, "The payload is missing.") }
        let event = try await identityProviders.verifyAppleNotification(payload, settings: project.federation)
        let first = try await store.claimSingleUse(
            "apple-s2s:" + Self.digest("\(project.projectID)\n\(event.id)"),
            until: event.issuedAt.addingTimeInterval(AppleNotification.maxAge + 120), now: clock.now())
        guard first else { return }
        guard
            let user = try await store.user(
                projectID: project.projectID, providerID: FederatedProvider.apple, rawID: event.subject)
        else { return }
        let metadata: Logger.Metadata = ["uid": "\(user.uid)", "event": "\(event.type)"]
        switch event.type {
        case AppleNotification.consentRevoked:
            try await retryingOnConflict {
                guard var current = try await store.user(projectID: project.projectID, uid: user.uid) else { return }
                current.providers.removeAll {
                    $0.providerID == FederatedProvider.apple && $0.rawID == event.subject
                }
                try await save(&current)
            }
            logger.notice("Apple consent revoked; apple.com unlinked", metadata: metadata)
        case AppleNotification.accountDelete:
            if project.federation.apple?.onAccountDelete == .delete {
                _ = try await store.deleteUser(projectID: project.projectID, uid: user.uid)
                logger.notice("Apple account deleted; user deleted", metadata: metadata)
            } else {
                try await retryingOnConflict {
                    guard var current = try await store.user(projectID: project.projectID, uid: user.uid) else {
                        return
                    }
                    current.disabled = true
                    try await save(&current)
                }
                try await store.revokeRefreshFamilies(
                    projectID: project.projectID, uid: user.uid, reason: .revoked, at: clock.now())
                logger.notice("Apple account deleted; user disabled", metadata: metadata)
            }
        default:
            logger.info("Apple notification", metadata: metadata)
        }
    }
}
