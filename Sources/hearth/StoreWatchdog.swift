import Logging
import Synchronization

/// Whether the store answers, for `/readyz`: a probe with a deadline, run every `interval` and by every `/readyz`
/// (one probe in flight at a time, which later checks share, so a hung store holds one probe, not one per check).
///
/// A store that stops answering (a database that hangs, a process wedged on its connections) otherwise left
/// `/readyz` waiting as long as the request did, and nothing in the log. The watchdog logs once when the store
/// stops answering within `deadline` and once when it answers again; `/readyz` fails in between, so an
/// orchestrator stops sending traffic and can restart the process.
final class StoreWatchdog: Sendable {
    private struct State: Sendable {
        var inFlight: Task<String?, Never>?
        /// Since when the store has not answered, and why; nil while it answers.
        var failing: (since: ContinuousClock.Instant, problem: String)?
    }

    let deadline: Duration
    let interval: Duration
    private let probe: @Sendable () async throws -> Void
    private let store: String
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameters:
    ///   - store: the store's description, for the log.
    ///   - probe: a cheap read that succeeds when the store answers.
    init(
        store: String, deadline: Duration = .seconds(3), interval: Duration = .seconds(10), logger: Logger,
        probe: @escaping @Sendable () async throws -> Void
    ) {
        self.store = store
        self.deadline = deadline
        self.interval = interval
        self.logger = logger
        self.probe = probe
    }

    /// Probes every `interval` until cancelled, so the log says when the store stops answering even while no one
    /// asks `/readyz`.
    func run() async {
        while !Task.isCancelled {
            _ = await check()
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Nil when the store answered within `deadline`; otherwise what went wrong.
    func check() async -> String? {
        let probe = state.withLock { state -> Task<String?, Never> in
            if let running = state.inFlight { return running }
            let started = Task { [probe = self.probe] () -> String? in
                do {
                    try await probe()
                    return nil
                } catch {
                    return "store unreachable: \(error)"
                }
            }
            state.inFlight = started
            return started
        }
        let problem: String?
        if let answer = await Self.value(of: probe, within: deadline) {
            problem = answer
            // Ended: the next check starts a probe of its own.
            state.withLock { if $0.inFlight == probe { $0.inFlight = nil } }
        } else {
            // Still running: later checks wait on it rather than start another.
            problem = "store unreachable: no answer within \(deadline)"
        }
        record(problem)
        return problem
    }

    private func record(_ problem: String?) {
        let now = ContinuousClock.now
        let change = state.withLock { state -> (started: Bool, after: Duration?) in
            switch (state.failing, problem) {
            case (nil, let problem?):
                state.failing = (now, problem)
                return (true, nil)
            case (let failing?, nil):
                state.failing = nil
                return (false, now - failing.since)
            default:
                return (false, nil)
            }
        }
        if change.started, let problem {
            logger.error("watchdog: \(problem) (\(store)); /readyz answers 503 until it answers again")
        } else if let after = change.after {
            logger.notice("watchdog: the store answers again after \(after) (\(store)); /readyz answers 200")
        }
    }

    /// The task's value if it ends within `limit`, else nil (the task runs on). Awaiting a task's value ignores
    /// cancellation, so the wait races a timer outside structured concurrency.
    private static func value(of task: Task<String?, Never>, within limit: Duration) async -> String?? {
        final class Once: Sendable {
            let done = Mutex(false)
            func first() -> Bool {
                done.withLock { done in
                    defer { done = true }; return !done
                }
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<String??, Never>) in
            let once = Once()
            let timer = Task {
                try? await Task.sleep(for: limit)
                if once.first() { continuation.resume(returning: .none) }
            }
            Task {
                let value = await task.value
                if once.first() {
                    // The timer has nothing left to decide: stop its sleep rather than leave it for `limit`.
                    timer.cancel()
                    continuation.resume(returning: .some(value))
                }
            }
        }
    }
}
