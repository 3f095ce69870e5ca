import Synchronization

/// A dictionary behind a lock with a fixed bound, for the request-path caches (verified ID tokens, lookup answers,
/// passkeys' decoded public keys; the user cache keeps fences beside its entries and so locks its own): a full
/// table is emptied rather than tracked for eviction, since each cache's source of truth is elsewhere and refilling
/// costs one miss per key. What makes an entry current is the caller's to check.
///
/// Inlinable so other modules specialise it: an unspecialised generic on the request path costs microseconds.
public final class BoundedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let entries = Mutex<[Key: Value]>([:])
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
    }

    @inlinable public subscript(key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    @inlinable public func insert(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }
}
