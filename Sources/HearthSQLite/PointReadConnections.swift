import Foundation
import GRDB
import Synchronization

/// Read-only connections of the SQLite store's own for point reads (a user, a counter) on the caller's thread,
/// taken only when one is free at once: never a wait.
///
/// A point read from the page cache takes microseconds, less than the hand-offs of GRDB's async read, so the store
/// reads on the calling thread when it can. It used to take one of GRDB's pooled readers for that, waiting on the
/// pool's semaphore when all were out. But an async `pool.read` hands its reader back only when its continuation
/// runs on the executor: with every executor thread waiting for a reader, nothing could hand one back, and a burst
/// of requests hung the process for good. These connections are used by nothing else, and a caller that finds none
/// free, or that SQLite would make wait (`SQLITE_BUSY`, with no busy timeout here), reads asynchronously instead.
final class PointReadConnections: Sendable {
    private struct State: Sendable {
        var idle: [DatabaseQueue] = []
        var opened = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let path: String
    /// At most this many connections, opened on first need: as many as threads that read at once, usually.
    let limit: Int

    init(path: String, limit: Int) {
        self.path = path
        self.limit = limit
    }

    /// `body`'s result on a free connection, or nil when none is free right now or SQLite answered busy: then the
    /// caller reads another way. `body` must not write; a single statement needs no transaction.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let connection = take() else { return nil }
        defer { giveBack(connection) }
        do {
            // A queue of its own that no one else holds: `inDatabase`'s dispatch `sync` runs on this thread at once.
            return try connection.inDatabase(body)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            return nil
        }
    }

    private enum Taken: Sendable { case idle(DatabaseQueue), open, none }

    private func take() -> DatabaseQueue? {
        let taken = state.withLock { state -> Taken in
            if state.closed { return .none }
            if let idle = state.idle.popLast() { return .idle(idle) }
            guard state.opened < limit else { return .none }
            state.opened += 1
            return .open
        }
        switch taken {
        case .idle(let connection): return connection
        case .none: return nil
        case .open:
            // Opened outside the lock; a failure leaves the slot for a later try and this read to the pool.
            do { return try DatabaseQueue(path: path, configuration: Self.configuration) } catch {
                state.withLock { $0.opened -= 1 }
                return nil
            }
        }
    }

    private func giveBack(_ connection: DatabaseQueue) {
        let keep = state.withLock { state in
            if state.closed { return false }
            state.idle.append(connection)
            return true
        }
        if !keep { try? connection.close() }
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .immediateError
        configuration.label = "hearth.point-read"
        return configuration
    }

    /// Closes the idle connections; one in use is closed when its read ends.
    func close() throws {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for connection in idle { try connection.close() }
    }
}
