import HearthCore
import HearthStore

/// Users as last read from the store, each with the store's `changeStamp` read before it, so repeated requests
/// for one user (an app calling `accounts:lookup` or `accounts:update` with the same ID token, a client refreshing)
/// skip the store read while no user has been written anywhere.
///
/// An entry is used only while the store's stamp still equals the one read before the entry's user was read: any
/// commit since that may have changed a user, by this process or by another on the same database (a revocation, a
/// disabled or deleted user, a password change), makes every entry stale at once. Stores that cannot stamp
/// cheaply (nil) are never cached. Only found users are kept, so a stamp need not move when a user is created
/// (SQLite's does not). Used by lookups (every ID-token check) and by refresh.
final class UserCache: Sendable {
    private struct Entry: Sendable {
        var user: UserRecord
        var stamp: UInt64
    }

    /// A full cache is emptied rather than tracked for eviction; the store is the truth anyway.
    private let entries: BoundedTable<String, Entry>

    init(capacity: Int = 4096) {
        entries = BoundedTable(capacity: capacity)
    }

    /// The user from the cache when current, else from the store (and then remembered).
    func user(projectID: String, uid: String, store: AuthStore) async throws -> UserRecord? {
        guard let stamp = store.changeStamp() else { return try await store.user(projectID: projectID, uid: uid) }
        let key = projectID + "\u{0}" + uid
        if let hit = entries[key], hit.stamp == stamp { return hit.user }
        guard let user = try await store.user(projectID: projectID, uid: uid) else { return nil }
        entries.insert(Entry(user: user, stamp: stamp), for: key)
        return user
    }
}
