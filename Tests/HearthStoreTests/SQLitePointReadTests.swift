import Dispatch
import Foundation
import GRDB
import HearthCore
import Synchronization
import Testing

@testable import HearthSQLite

/// The SQLite store's point reads (a user, a counter) never wait for one of GRDB's pooled readers.
///
/// They used to read on the caller's thread through the pool, waiting for a reader when all eight were out; an
/// async read gives its reader back only on the executor, so executor threads waiting for one hung the process
/// (issue 25; `RequestBurstTests` shows it on the real binary). Here the pooled readers are all held by reads
/// that have not finished (stand-ins for reads whose continuations have not run yet), and the point reads must
/// answer anyway.
@Suite("SQLite point reads", .timeLimit(.minutes(3)))
struct SQLitePointReadTests {
    @Test func pointReadsAnswerWhileEveryPooledReaderIsHeld() async throws {
        try await withSQLiteStore { store, _ in
            try await store.insertUser(
                UserRecord(projectID: "p", uid: "u", email: "u@example.com", validSince: Date(), createdAt: Date()))

            // Each held read blocks one of GRDB's own reader threads (never an executor thread) until released.
            let release = DispatchSemaphore(value: 0)
            let held = Atomic<Int>(0)
            for _ in 0..<8 {
                store.pool.asyncRead { _ in
                    _ = held.add(1, ordering: .sequentiallyConsistent)
                    release.wait()
                }
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while held.load(ordering: .sequentiallyConsistent) < 8, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try #require(held.load(ordering: .sequentiallyConsistent) == 8, "the pooled readers were not all taken")

            // Raced against a deadline: the old code blocked the caller until a reader came back, so on the deadline
            // the readers are let go and the blocked read can end. The deadline is long because it also counts the
            // wait for a thread to run the reads on: in CI, other suites' tests keep both cores busy (the reads
            // themselves take microseconds, and the old code never answered at all).
            let letGo: @Sendable () -> Void = { for _ in 0..<8 { release.signal() } }
            let answered = await Self.answer(within: .seconds(60), onDeadline: letGo) {
                let byID = try await store.user(projectID: "p", uid: "u")?.uid
                let byEmail = try await store.user(projectID: "p", email: "u@example.com")?.uid
                let count = try await store.counter("k", windowSeconds: 60, now: Date())
                return "\(byID ?? "-") \(byEmail ?? "-") \(count)"
            }
            #expect(answered == "u u 0", "point reads waited for a pooled reader")
            if answered != nil { letGo() }
        }
    }

    /// `body`'s result, or nil when `limit` passed first (then `onDeadline` runs and `body` is left to finish). The
    /// deadline is a dispatch timer, not a task: a blocked cooperative thread cannot hold it up.
    static func answer(
        within limit: Duration, onDeadline: @escaping @Sendable () -> Void,
        _ body: @escaping @Sendable () async throws -> String
    ) async -> String? {
        let first = Mutex(true)
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let resume = { @Sendable (value: String?) -> Bool in
                guard
                    first.withLock({ first in
                        defer { first = false }; return first
                    })
                else { return false }
                continuation.resume(returning: value)
                return true
            }
            Task { _ = resume(try? await body()) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit.components.seconds * 1000))) {
                if resume(nil) { onDeadline() }
            }
        }
    }
}
