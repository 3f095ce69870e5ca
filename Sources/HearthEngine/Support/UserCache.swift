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
/// (SQLite's does not). Used by lookups (every ID-token check), refresh and passkey sign-in.
///
/// A sign-in's bookkeeping (last sign-in, last refresh, a passkey's counter) need not move the stamp (SQLite's does
/// not, so one user's sign-in leaves every other user cached): this process says so after writing it
/// (`bookkeepingWritten`), which drops that user's entry and keeps out any read of the user begun before the write;
/// or, given the user it read with the write applied, keeps that instead when no other such write came between.
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

        /// Whether a read of `key` begun at `began` (the sequence then) may be kept: no bookkeeping write of the
        /// user since, as far as the fences still know.
        func mayKeep(_ key: String, readBegun began: UInt64) -> Bool {
            began >= floor && fences[key].map { $0 <= began } ?? true
        }

        mutating func keep(_ entry: Entry, for key: String, capacity: Int) {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }

    private let state = Mutex(State())
    /// A full table (of entries, or of fences) is emptied rather than tracked for eviction; the store is the truth.
    let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// What a read of a user needs for the caller to put the user back after writing its bookkeeping
    /// (`bookkeepingWritten(projectID:uid:updated:ticket:)`): the stamp the user was current for, and the number of
    /// bookkeeping writes before the read began.
    struct Ticket: Sendable {
        fileprivate let stamp: UInt64
        fileprivate let began: UInt64
    }

    /// The user from the cache when current, else from the store (and then remembered).
    func user(projectID: String, uid: String, store: AuthStore) async throws -> UserRecord? {
        try await ticketed(projectID: projectID, uid: uid, store: store)?.user
    }

    /// `user(projectID:uid:store:)` with its ticket (nil when the store cannot stamp).
    func ticketed(projectID: String, uid: String, store: AuthStore) async throws -> (user: UserRecord, ticket: Ticket?)?
    {
        guard let stamp = store.changeStamp() else {
            return try await store.user(projectID: projectID, uid: uid).map { ($0, nil) }
        }
        let key = Self.key(projectID, uid)
        let (hit, began) = state.withLock { state -> (UserRecord?, UInt64) in
            (state.entries[key].flatMap { $0.stamp == stamp ? $0.user : nil }, state.sequence)
        }
        let ticket = Ticket(stamp: stamp, began: began)
        if let hit { return (hit, ticket) }
        guard let user = try await store.user(projectID: projectID, uid: uid) else { return nil }
        remember(user, ticket)
        return (user, ticket)
    }

    /// A user read another way than by uid (by a passkey's credential id), remembered as a read by uid is.
    func read(store: AuthStore, _ read: () async throws -> UserRecord?) async throws
        -> (user: UserRecord, ticket: Ticket?)?
    {
        guard let stamp = store.changeStamp() else { return try await read().map { ($0, nil) } }
        let ticket = Ticket(stamp: stamp, began: state.withLock { $0.sequence })
        guard let user = try await read() else { return nil }
        remember(user, ticket)
        return (user, ticket)
    }

    private func remember(_ user: UserRecord, _ ticket: Ticket) {
        let key = Self.key(user.projectID, user.uid)
        state.withLock { state in
            guard state.mayKeep(key, readBegun: ticket.began) else { return }
            state.keep(Entry(user: user, stamp: ticket.stamp), for: key, capacity: capacity)
        }
    }

    /// This process has committed `uid`'s sign-in bookkeeping, which may have left the stamp where it was. With
    /// `updated` (the user read under `ticket`, with that bookkeeping applied) the entry is replaced rather than
    /// dropped, unless another bookkeeping write of the user came after that read began.
    func bookkeepingWritten(projectID: String, uid: String, updated: UserRecord? = nil, ticket: Ticket? = nil) {
        let key = Self.key(projectID, uid)
        state.withLock { state in
            var replacement: Entry?
            if let updated, let ticket, state.mayKeep(key, readBegun: ticket.began) {
                replacement = Entry(user: updated, stamp: ticket.stamp)
            }
            state.sequence += 1
            if state.fences.count >= capacity {
                state.fences.removeAll(keepingCapacity: true)
                state.floor = state.sequence
            }
            state.fences[key] = state.sequence
            state.entries[key] = nil
            if let replacement { state.keep(replacement, for: key, capacity: capacity) }
        }
    }

    private static func key(_ projectID: String, _ uid: String) -> String { projectID + "\u{0}" + uid }
}
