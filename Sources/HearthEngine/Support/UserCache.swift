import HearthCore
import HearthStore
import Synchronization

/// Users as last read from the store, each with the store's `changeStamp` read before it, so repeated requests
/// for one user (an app calling `accounts:lookup` or `accounts:update` with the same ID token, a client refreshing)
/// skip the store read while no user has been written anywhere.
///
/// An entry is used only while the store's stamp still equals the one read before the entry's user was read: any
/// commit since that may have changed a user, by this process or by another on the same database (a revocation, a
/// disabled or deleted user, a password change), makes every entry stale at once. Stores that cannot stamp
/// cheaply (nil) are never cached. Only found users are kept, so a stamp need not move when a user is created
/// (SQLite's does not). Used by lookups (every ID-token check) and by refresh.
///
/// A sign-in's bookkeeping (last sign-in, last refresh, a passkey's counter) need not move the stamp (SQLite's does
/// not, so one user's sign-in leaves every other user cached): this process says so after writing it
/// (`bookkeepingWritten`), which drops that user's entry and keeps out any read of the user begun before the write.
final class UserCache: Sendable {
    private struct Entry: Sendable {
        var user: UserRecord
        var stamp: UInt64
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        /// Per user whose bookkeeping this process wrote: that write's number in `sequence`. A read begun before it
        /// may hold the row from before the write, so it is not kept.
        var fences: [String: UInt64] = [:]
        var sequence: UInt64 = 0
        /// Reads begun before this are not kept: the fences were emptied when full.
        var floor: UInt64 = 0
    }

    private let state = Mutex(State())
    /// A full table (of entries, or of fences) is emptied rather than tracked for eviction; the store is the truth.
    let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The user from the cache when current, else from the store (and then remembered).
    func user(projectID: String, uid: String, store: AuthStore) async throws -> UserRecord? {
        guard let stamp = store.changeStamp() else { return try await store.user(projectID: projectID, uid: uid) }
        let key = Self.key(projectID, uid)
        let (hit, began) = state.withLock { state -> (UserRecord?, UInt64) in
            if let hit = state.entries[key], hit.stamp == stamp { return (hit.user, 0) }
            return (nil, state.sequence)
        }
        if let hit { return hit }
        guard let user = try await store.user(projectID: projectID, uid: uid) else { return nil }
        state.withLock { state in
            guard began >= state.floor, state.fences[key].map({ $0 <= began }) ?? true else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = Entry(user: user, stamp: stamp)
        }
        return user
    }

    /// This process has committed `uid`'s sign-in bookkeeping, which may have left the stamp where it was.
    func bookkeepingWritten(projectID: String, uid: String) {
        let key = Self.key(projectID, uid)
        state.withLock { state in
            state.sequence += 1
            if state.fences.count >= capacity {
                state.fences.removeAll(keepingCapacity: true)
                state.floor = state.sequence
            }
            state.fences[key] = state.sequence
            state.entries[key] = nil
        }
    }

    private static func key(_ projectID: String, _ uid: String) -> String { projectID + "\u{0}" + uid }
}
