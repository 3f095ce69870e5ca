import HearthStore
import PostgresNIO
import Synchronization

/// Waits for `operation`, run in a task of its own, for at most `limit` and only while the caller is not cancelled;
/// nil when the limit or the cancellation comes first. The operation is then left to end (or never end) unawaited.
/// For waits that cancellation does not reach and that may never end: a task's value, or a PostgresNIO query written
/// to a connection that has just closed, which is neither answered nor failed (a task group would wait for it for
/// good).
func waitAtMost<T: Sendable>(_ limit: Duration, for operation: @escaping @Sendable () async -> T) async -> T? {
    let race = FirstOutcome<T>()
    let worker = Task { race.settle(await operation()) }
    let timer = Task {
        try? await Task.sleep(for: limit)
        race.settle(nil)
    }
    let outcome = await withTaskCancellationHandler {
        await withCheckedContinuation { race.await($0) }
    } onCancel: {
        race.settle(nil)
    }
    timer.cancel()
    worker.cancel()
    return outcome
}

/// The first of several outcomes, handed to one waiting continuation whether it starts waiting before or after.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var waiting: CheckedContinuation<T?, Never>?
        /// nil until settled; then the outcome (itself nil for "none").
        var outcome: T??
    }

    private let state = Mutex(State())

    func settle(_ outcome: T?) {
        let waiting = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(outcome)
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: outcome)
    }

    func await(_ continuation: CheckedContinuation<T?, Never>) {
        let settled = state.withLock { state -> T?? in
            if state.outcome == nil { state.waiting = continuation }
            return state.outcome
        }
        if let settled { continuation.resume(returning: settled) }
    }
}

/// Ends the waits on pooled connections when a connection closes. A statement written to a connection just as it
/// closed is never answered nor failed by PostgresNIO (NIO drops the write once the pipeline is torn down), so every
/// lease's work runs in a task of its own that the caller stops waiting for once its connection has closed; the
/// pool gets the closed connection back and the abandoned task ends with the process. One watcher per connection,
/// with one callback on its close future (a callback per statement would pile up on a long-lived connection).
final class ConnectionCloseWatch: Sendable {
    private let watchers = Mutex<[PostgresConnection.ID: Watcher]>([:])

    /// Runs `body`, but gives up on it with `StoreUnavailable` once `connection` has closed.
    func untilClosed<T: Sendable>(
        _ connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = FirstOutcome<Result<T, any Error>>()
        let closed: @Sendable () -> Void = {
            outcome.settle(.failure(StoreUnavailable("the connection to PostgreSQL closed")))
        }
        let (watcher, key) = watch(connection, closed)
        defer { watcher.forget(key) }
        let worker = Task {
            do { outcome.settle(.success(try await body())) } catch { outcome.settle(.failure(error)) }
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { outcome.await($0) }
        } onCancel: {
            worker.cancel()
        }
        // Always settled with a result: nothing here settles nil.
        return try result!.get()
    }

    private func watch(_ connection: PostgresConnection, _ closed: @escaping @Sendable () -> Void) -> (Watcher, Int) {
        let id = connection.id
        let (watcher, isNew) = watchers.withLock { watchers in
            if let watcher = watchers[id] { return (watcher, false) }
            let watcher = Watcher()
            watchers[id] = watcher
            return (watcher, true)
        }
        if isNew {
            connection.closeFuture.whenComplete { _ in
                self.watchers.withLock { watchers in
                    if watchers[id] === watcher { watchers[id] = nil }
                }
                watcher.close()
            }
        }
        return (watcher, watcher.add(closed))
    }

    private final class Watcher: Sendable {
        private struct State {
            var closed = false
            var next = 0
            var waiting: [Int: @Sendable () -> Void] = [:]
        }

        private let state = Mutex(State())

        /// Registers `closed`, called once the connection has closed (at once if it already has).
        func add(_ closed: @escaping @Sendable () -> Void) -> Int {
            let (key, isClosed) = state.withLock { state in
                state.next += 1
                if !state.closed { state.waiting[state.next] = closed }
                return (state.next, state.closed)
            }
            if isClosed { closed() }
            return key
        }

        func forget(_ key: Int) {
            _ = state.withLock { $0.waiting.removeValue(forKey: key) }
        }

        func close() {
            let waiting = state.withLock { state in
                state.closed = true
                defer { state.waiting = [:] }
                return Array(state.waiting.values)
            }
            for closed in waiting { closed() }
        }
    }
}
