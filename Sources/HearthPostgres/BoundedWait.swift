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
    private struct State: @unchecked Sendable {
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
