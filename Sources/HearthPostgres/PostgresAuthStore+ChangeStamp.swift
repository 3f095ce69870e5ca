import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The change stamp of a PostgreSQL store: a generation that moves on every commit that changed a user, by this
/// process or by any other server on the same database, so the engine's user cache can skip the store read.
///
/// Other processes are heard through LISTEN on a connection of its own, outside the pool: triggers on `users` and
/// `provider_links` (migration `v11_user_changes`) `NOTIFY hearth_users` in every transaction that changes them, and
/// PostgreSQL delivers the notification after COMMIT. This process's own writes move the generation as soon as they return,
/// before the request that made them is answered. While the listening connection is not known to be alive (not yet
/// listening, reconnecting, or no heartbeat answered within `staleAfter`), the stamp is nil and nothing is cached.
final class UserChangeFeed: Sendable {
    static let channel = "hearth_users"

    private struct State {
        var generation: UInt64 = 0
        var listening = false
        /// When the listening connection last proved alive (LISTEN or a heartbeat answered).
        var aliveAt = ContinuousClock.now
    }

    private let state = Mutex(State())
    /// How often the listening connection is asked to prove it is alive.
    let heartbeat: Duration
    /// How long after the last proof the stamp is still given out; past it, the connection may be dead unnoticed.
    let staleAfter: Duration

    init(heartbeat: Duration = .seconds(1), staleAfter: Duration = .seconds(3)) {
        self.heartbeat = heartbeat
        self.staleAfter = staleAfter
    }

    /// The current generation, or nil while notifications from other processes might be missed.
    func stamp() -> UInt64? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard state.listening, now - state.aliveAt < staleAfter else { return nil }
            return state.generation
        }
    }

    /// A change was committed (here, or elsewhere and notified).
    func changed() {
        state.withLock { $0.generation &+= 1 }
    }

    /// LISTEN took effect: whatever changed while nobody listened makes earlier entries stale.
    fileprivate func listening() {
        state.withLock { state in
            state.generation &+= 1
            state.listening = true
            state.aliveAt = .now
        }
    }

    fileprivate func alive(at instant: ContinuousClock.Instant) {
        state.withLock { state in state.aliveAt = max(state.aliveAt, instant) }
    }

    /// Whether it had been listening.
    fileprivate func stopped() -> Bool {
        state.withLock { state in
            defer { state.listening = false }
            state.generation &+= 1
            return state.listening
        }
    }

    /// Listens until cancelled, on a connection of its own outside the pool, reconnecting after failures with a
    /// back-off of its own (a quarter second doubling to `maxBackOff`, reset once listening again).
    ///
    /// Every wait is bounded: connecting by the configuration's connect timeout; LISTEN and each heartbeat must be
    /// answered within `staleAfter`, or the connection is closed, which fails what waits on it; the heartbeat itself
    /// is waited for through `waitAtMost`, since a query written to a connection that has just closed never ends
    /// (the listener once hung for good so, beyond cancellation); cancellation closes the connection at once.
    func run(configuration: PostgresConnection.Configuration, logger: Logger) async {
        let backOff = Duration.milliseconds(250)
        var pause = backOff
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: attempt, logger: logger)
                var ended: (any Error)?
                do {
                    try await withTaskCancellationHandler {
                        try await listen(on: connection, logger: logger)
                    } onCancel: {
                        connection.closeNow()
                    }
                } catch {
                    ended = error
                }
                // Closing a socket completes at once; it must be closed before the connection is released.
                try? await connection.close()
                if let ended { throw ended }
            } catch {
                if !Task.isCancelled {
                    logger.debug("user-change listener stopped; caching paused", metadata: ["error": "\(error)"])
                }
            }
            if stopped() { pause = backOff }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, Self.maxBackOff)
        }
    }

    static let maxBackOff = Duration.seconds(5)

    /// Listens on `connection` until it fails or stops answering; the connection is closed on return.
    private func listen(on connection: PostgresConnection, logger: Logger) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await connection.listen(on: Self.channel) { notifications in
                    self.listening()
                    for try await _ in notifications { self.changed() }
                }
                throw CancellationError()
            }
            group.addTask {
                // A connection can die without the socket saying so (a partition), and LISTEN itself may go
                // unanswered: the stamp is given out only while a query queued behind it has been answered recently.
                while true {
                    try await Task.sleep(for: self.heartbeat)
                    let asked = ContinuousClock.now
                    let answered =
                        await waitAtMost(self.staleAfter) {
                            // A query written to a connection that has closed would never end: not awaited beyond
                            // the bound, and not started on a connection known to be closed.
                            guard !connection.isClosed else { return false }
                            return (try? await connection.query("SELECT 1", logger: logger).collect()) != nil
                        } ?? false
                    try Task.checkCancellation()
                    // Unanswered: the group's end closes the connection.
                    guard answered else { throw HeartbeatUnanswered() }
                    self.alive(at: asked)
                }
            }
            defer {
                connection.closeNow()
                group.cancelAll()
            }
            try await group.next()
        }
    }
}

extension PostgresConnection {
    /// Closes without waiting: every query and listener waiting on the connection fails at once.
    fileprivate func closeNow() {
        let _: EventLoopFuture<Void> = close()
    }
}

/// The listening connection did not answer a heartbeat in time.
struct HeartbeatUnanswered: Error {}
