import Dispatch
import Foundation
import GRDB
import HearthStore

/// Group commit for refresh-token rotation: the rotations of concurrent refreshes are applied in one write
/// transaction, one savepoint each, in arrival order, and answered only after that transaction has committed.
///
/// One transaction per refresh made every refresh wait for the single writer connection in turn (BEGIN, a read,
/// two writes, COMMIT, and a hand-off to and from the writer's queue) while the event loops had nothing else to
/// do; batched, the writer's fixed costs are shared and the event loops keep signing. The rules are unchanged:
/// every rotation reads and writes under the writer's lock (`BEGIN IMMEDIATE`, so across processes too), two
/// rotations of one token in one batch are applied one after the other exactly as they would be in two
/// transactions, and nothing is answered before COMMIT, so an answered refresh survives `kill -9`.
final class RotationBatcher: Sendable {
    private let queue: GroupCommitQueue<RefreshRotation, RefreshRotationOutcome>
    private let pool: DatabasePool

    init(pool: DatabasePool, maximumBatch: Int = 128) {
        self.pool = pool
        queue = GroupCommitQueue(maximumBatch: maximumBatch)
    }

    func rotate(_ rotation: RefreshRotation) async throws -> RefreshRotationOutcome {
        try await withCheckedThrowingContinuation { answer in
            // The first request of a batch writes it, off the event loops: the write blocks on the writer.
            if queue.enqueue(rotation, answer: answer) { DispatchQueue.global().async { self.writeBatches() } }
        }
    }

    /// Writes what is waiting, then what arrived meanwhile, until nothing is left.
    private func writeBatches() {
        while true {
            let batch = queue.nextBatch()
            if batch.isEmpty { return }
            var outcomes: [Result<RefreshRotationOutcome, any Error>]
            do {
                outcomes = try pool.write { db in
                    batch.map { waiting in
                        Result {
                            var outcome = RefreshRotationOutcome.unknown
                            // A failed rotation rolls back its own changes only; the others still commit.
                            try db.inSavepoint {
                                outcome = try SQLiteAuthStore.rotate(db, waiting.item)
                                return .commit
                            }
                            return outcome
                        }
                    }
                }
            } catch {
                // The transaction did not commit: no rotation of the batch happened.
                outcomes = batch.map { _ in .failure(error) }
            }
            for (waiting, outcome) in zip(batch, outcomes) { waiting.resume(with: outcome) }
        }
    }
}
