import Synchronization

/// Who came first for one lease: the connection (the body runs) or the deadline (the caller gets
/// `StoreUnavailable` and a connection that arrives later is handed straight back).
final class LeaseDeadline: Sendable {
    private enum State { case waiting, leased, expired }
    private let state = Mutex(State.waiting)

    /// Marks the connection as leased; false when the deadline passed first.
    func begin() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .leased
            return true
        }
    }

    /// Marks the deadline as passed; false when the connection came first.
    func expire() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .expired
            return true
        }
    }

    var began: Bool { state.withLock { $0 == .leased } }
    var expired: Bool { state.withLock { $0 == .expired } }
}

/// One timer for every lease of a store: each watched lease is expired once it has waited `wait`.
///
/// A timer per statement (a child task sleeping beside the lease) cost a task, a dispatch timer and a wake of
/// dispatch's timer thread on every statement, about 4% of a PostgreSQL refresh's CPU. Here watching is a
/// dictionary insert under a lock, and under load a single task wakes about once per `wait`. Every lease waits
/// the same `wait`, so a lease watched later is never due earlier: sleeping until the oldest one's deadline
/// misses nothing.
final class LeaseWatch: Sendable {
    private struct Watched: Sendable {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State: Sendable {
        var watched: [UInt64: Watched] = [:]
        var nextID: UInt64 = 0
        var timing = false
    }

    let wait: Duration
    private let state = Mutex(State())

    init(wait: Duration) { self.wait = wait }

    /// Calls `expire` once `wait` has passed, unless `forget` is called with the answer first.
    func watch(_ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = ContinuousClock.now.advanced(by: wait)
        let (id, startsTimer) = state.withLock { state in
            state.nextID += 1
            state.watched[state.nextID] = Watched(deadline: deadline, expire: expire)
            defer { state.timing = true }
            return (state.nextID, !state.timing)
        }
        if startsTimer { Task { await self.expireUntilEmpty() } }
        return id
    }

    func forget(_ id: UInt64) {
        _ = state.withLock { $0.watched.removeValue(forKey: id) }
    }

    /// How many leases are watched now.
    var count: Int { state.withLock { $0.watched.count } }

    /// Expires what is due, then sleeps until the oldest remaining deadline; ends when nothing is watched.
    private func expireUntilEmpty() async {
        while true {
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                var due: [@Sendable () -> Void] = []
                var next: ContinuousClock.Instant?
                for (id, watched) in state.watched {
                    if watched.deadline <= now {
                        due.append(watched.expire)
                        state.watched[id] = nil
                    } else if next.map({ watched.deadline < $0 }) ?? true {
                        next = watched.deadline
                    }
                }
                if next == nil { state.timing = false }
                return (due, next)
            }
            for expire in due { expire() }
            guard let next else { return }
            try? await Task.sleep(until: next, clock: .continuous)
        }
    }
}
