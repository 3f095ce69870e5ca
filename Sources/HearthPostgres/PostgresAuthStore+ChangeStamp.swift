import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The change stamp of a PostgreSQL store: a generation that moves on every commit that changed a user, by this
/// process or by any other server on the same database, so the engine's user cache can skip the store read.
///
/// Other processes are heard through LISTEN on a connection of its own: triggers on `users` and `provider_links`
/// (migration `v11_user_changes`) `NOTIFY hearth_users` in every transaction that changes them, and PostgreSQL
/// delivers the notification after COMMIT. This process's own writes move the generation as soon as they return,
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

    fileprivate func stopped() {
        state.withLock { state in
            state.listening = false
            state.generation &+= 1
        }
    }

    /// Listens on a pooled connection until cancelled, reconnecting after failures (with the pool's own back-off
    /// while the database is down, plus a pause of its own).
    func run(client: PostgresClient, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await self.listen(on: connection, logger: logger)
                }
            } catch {
                if !Task.isCancelled {
                    logger.debug("user-change listener stopped; caching paused", metadata: ["error": "\(error)"])
                }
            }
            stopped()
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    private func listen(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.listen(on: Self.channel) { notifications in
            listening()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await _ in notifications { self.changed() }
                    throw CancellationError()
                }
                group.addTask {
                    // A connection can die without the socket saying so (a partition): the stamp is given out only
                    // while a query on this connection has been answered recently.
                    while true {
                        try await Task.sleep(for: self.heartbeat)
                        let asked = ContinuousClock.now
                        try await withThrowingTaskGroup(of: Bool.self) { heartbeat in
                            heartbeat.addTask {
                                _ = try await connection.query("SELECT 1", logger: logger).collect()
                                return true
                            }
                            heartbeat.addTask {
                                // Unanswered: close the connection, which fails the query and ends the listening.
                                try await Task.sleep(for: self.staleAfter)
                                try? await connection.close()
                                return false
                            }
                            let answered = try await heartbeat.next() ?? false
                            heartbeat.cancelAll()
                            if !answered { throw HeartbeatUnanswered() }
                        }
                        self.alive(at: asked)
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }
}

/// The listening connection did not answer a heartbeat in time.
struct HeartbeatUnanswered: Error {}
