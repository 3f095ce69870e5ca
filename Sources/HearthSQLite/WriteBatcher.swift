import Dispatch
import Foundation
import GRDB
import HearthStore

/// Group commit: the writes of concurrent requests (refresh-token rotations, passkey sign-ins) are applied in one
/// write transaction, one savepoint each, in arrival order, and answered only after that transaction has committed.
///
/// One transaction per request made every request wait for the single writer connection in turn (BEGIN, its reads
/// and writes, COMMIT, and a hand-off to and from the writer's queue) while the event loops had nothing else to
/// do; batched, the writer's fixed costs and the pages several writes touch are shared, and the event loops keep
/// signing. The rules are unchanged: every write reads and writes under the writer's lock (`BEGIN IMMEDIATE`, so
/// across processes too), two writes of one record in one batch are applied one after the other exactly as they
/// would be in two transactions, a write that throws rolls back its own savepoint only, and nothing is answered
/// before COMMIT, so an answered request survives `kill -9`.
final class WriteBatcher<Item: Sendable, Outcome: Sendable>: Sendable {
    private let queue: GroupCommitQueue<Item, Outcome>
    private let pool: DatabasePool
    private let apply: @Sendable (Database, Item) throws -> Outcome

    /// `apply` writes one item inside the batch's transaction.
    init(pool: DatabasePool, maximumBatch: Int = 128, apply: @escaping @Sendable (Database, Item) throws -> Outcome) {
        self.pool = pool
        self.apply = apply
        queue = GroupCommitQueue(maximumBatch: maximumBatch)
    }

    func write(_ item: Item) async throws -> Outcome {
        try await withCheckedThrowingContinuation { answer in
            // The first request of a batch writes it, off the event loops: the write blocks on the writer.
            if queue.enqueue(item, answer: answer) { DispatchQueue.global().async { self.writeBatches() } }
        }
    }

    /// Writes what is waiting, then what arrived meanwhile, until nothing is left.
    private func writeBatches() {
        while true {
            let batch = queue.nextBatch()
            if batch.isEmpty { return }
            var outcomes: [Result<Outcome, any Error>]
            do {
                outcomes = try pool.write { db in
                    batch.map { waiting in
                        Result {
                            var outcome: Outcome?
                            // A failed write rolls back its own changes only; the others still commit.
                            try db.inSavepoint {
                                outcome = try apply(db, waiting.item)
                                return .commit
                            }
                            return outcome!
                        }
                    }
                }
            } catch {
                // The transaction did not commit: no write of the batch happened.
                outcomes = batch.map { _ in .failure(error) }
            }
            for (waiting, outcome) in zip(batch, outcomes) { waiting.resume(with: outcome) }
        }
    }
}
