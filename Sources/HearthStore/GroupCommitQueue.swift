import Synchronization

/// The waiting room of a group commit: requests queue here while one writer applies what is waiting as a batch,
/// in one transaction, and answers each request after that transaction has committed.
///
/// The stores decide how a batch is written and where the writer runs; this holds the rules they share. The first
/// request to arrive while no one writes becomes the writer (`enqueue` says so) and takes batches with `nextBatch`
/// until it gets an empty one; a batch holds at most `maximumBatch` requests, in arrival order, so no request waits
/// behind more than one full batch.
public final class GroupCommitQueue<Item: Sendable, Outcome: Sendable>: Sendable {
    public struct Waiting: Sendable {
        public let item: Item
        let answer: CheckedContinuation<Outcome, any Error>

        public func resume(with outcome: Result<Outcome, any Error>) { answer.resume(with: outcome) }
    }

    private struct State: Sendable {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let state = Mutex(State())
    public let maximumBatch: Int
    /// Items with one key go to different batches (a later one waits for the next), for a store whose way of
    /// writing a batch could not apply them one after the other.
    private let key: (@Sendable (Item) -> AnyHashable)?

    public init(maximumBatch: Int = 128, separating key: (@Sendable (Item) -> AnyHashable)? = nil) {
        self.maximumBatch = maximumBatch
        self.key = key
    }

    /// Queues `item` to be answered through `answer`; true when the caller must now start the writer.
    public func enqueue(_ item: Item, answer: CheckedContinuation<Outcome, any Error>) -> Bool {
        state.withLock { state in
            state.waiting.append(Waiting(item: item, answer: answer))
            if state.writing { return false }
            state.writing = true
            return true
        }
    }

    /// The writer's next batch, in arrival order; empty when nothing waits, and then the writer has stopped.
    public func nextBatch() -> [Waiting] {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.writing = false
                return []
            }
            guard let key else {
                let batch = Array(state.waiting.prefix(maximumBatch))
                state.waiting.removeFirst(batch.count)
                return batch
            }
            var batch: [Waiting] = []
            var left: [Waiting] = []
            var keys = Set<AnyHashable>()
            for waiting in state.waiting {
                if batch.count < maximumBatch, keys.insert(key(waiting.item)).inserted {
                    batch.append(waiting)
                } else {
                    left.append(waiting)
                }
            }
            state.waiting = left
            return batch
        }
    }
}
