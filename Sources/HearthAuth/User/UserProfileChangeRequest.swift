import Foundation
import Synchronization

/// Pending changes to a user's display name and photo URL; nothing is sent until `commitChanges()`.
public final class UserProfileChangeRequest: Sendable {
    private struct Change {
        var displayName: String??
        var photoURL: URL??
    }

    private let user: User
    private let change = Mutex(Change())

    init(user: User) {
        self.user = user
    }

    /// The new display name; nil removes it.
    public var displayName: String? {
        get { change.withLock { $0.displayName ?? user.displayName } }
        set { change.withLock { $0.displayName = .some(newValue) } }
    }

    /// The new photo URL; nil removes it.
    public var photoURL: URL? {
        get { change.withLock { $0.photoURL ?? user.photoURL } }
        set { change.withLock { $0.photoURL = .some(newValue) } }
    }

    /// Saves the changes on the server and in the user.
    public func commitChanges() async throws {
        let pending = change.withLock { $0 }
        var fields: [String: JSON] = [:]
        var deletions: [JSON] = []
        if let name = pending.displayName {
            if let name { fields["displayName"] = .string(name) } else { deletions.append("DISPLAY_NAME") }
        }
        if let url = pending.photoURL {
            if let url { fields["photoUrl"] = .string(url.absoluteString) } else { deletions.append("PHOTO_URL") }
        }
        if !deletions.isEmpty { fields["deleteAttribute"] = .array(deletions) }
        guard !fields.isEmpty else { return }
        try await user.updateAccount(fields)
    }
}
