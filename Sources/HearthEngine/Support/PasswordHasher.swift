import Foundation
import HearthCore
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs password hashing on its own threads, never on an event loop or the cooperative pool.
///
/// The threads run at a lower scheduling priority (`nice`), so a burst of password sign-ins
/// uses idle CPU without starving token refreshes and lookups, which need only milliseconds.
public final class PasswordHasher: Sendable {
    let pool: NIOThreadPool
    public let parameters: ScryptParameters
    let random: SecureRandom
    let niceness: Int32
    /// Verified against when an e-mail is unknown, so both cases cost one hash. Made on a hashing thread at its
    /// first use rather than at start: a scrypt hash would add tens of milliseconds to every start.
    private let decoyHash = Mutex<PasswordHash?>(nil)
    /// Hashes queued or running, for the operator's queue-depth gauge.
    let pending = Atomic<Int>(0)
    /// Run on a hashing thread when a hash ends with no other queued or running: the server gives scrypt's
    /// working buffers back to the system there (`MallocSettings`), and keeps them while a burst lasts.
    let whenIdle: (@Sendable () -> Void)?

    public init(
        threads: Int, parameters: ScryptParameters, niceness: Int32 = 5, random: SecureRandom = .system,
        whenIdle: (@Sendable () -> Void)? = nil
    ) {
        pool = NIOThreadPool(numberOfThreads: max(threads, 1))
        pool.start()
        self.parameters = parameters
        self.random = random
        self.niceness = niceness
        self.whenIdle = whenIdle
    }

    /// One scrypt's worth of work that proves nothing: verifying `password` against the decoy, or, the first time,
    /// making the decoy, which costs the same one hash (so the first unknown e-mail after a start takes no longer
    /// than any other). Call on a hashing thread. Two first uses at once may both make one; either is as good.
    private func decoyCheck(_ password: String) {
        if let made = decoyHash.withLock({ $0 }) {
            _ = made.verify(password)
            return
        }
        let made = PasswordHash.make(password: random.token(bytes: 16), parameters: parameters, random: random)
        decoyHash.withLock { $0 = $0 ?? made }
    }

    public func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    public func hash(_ password: String) async throws -> PasswordHash {
        try await run { [parameters, random] in
            PasswordHash.make(password: password, parameters: parameters, random: random)
        }
    }

    /// Verifies `password` against `stored`, or against the decoy when there is no stored hash.
    ///
    /// Imported hashes (MD5, SHA, HMAC…) verify in microseconds; the decoy runs for them too, so an
    /// account with a fast imported hash cannot be told from an unknown e-mail by the time it takes.
    public func verify(_ password: String, against stored: PasswordHash?) async throws -> Bool {
        guard let stored else {
            try await run { [self] in decoyCheck(password) }
            return false
        }
        // Digest, HMAC and PBKDF2 imports are fast enough to tell apart; scrypt variants and bcrypt are not.
        let isFast: Bool
        switch stored {
        case .scrypt, .firebaseScrypt, .standardScrypt, .bcrypt: isFast = false
        case .pbkdf2, .hmac, .digest: isFast = true
        }
        return try await run { [self] in
            let ok = stored.verify(password)
            if isFast { decoyCheck(password) }
            return ok
        }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        let queued = ContinuousClock.now
        AuthMetrics.hashQueueDepth.record(pending.add(1, ordering: .relaxed).newValue)
        do {
            return try await pool.runIfActive { [self, niceness] in
                let waited = (ContinuousClock.now - queued).components
                AuthMetrics.hashWait.recordNanoseconds(
                    waited.seconds * 1_000_000_000 + waited.attoseconds / 1_000_000_000)
                PasswordHasher.lowerPriorityOnce(niceness)
                let result = work()
                // Counted down here, on the hashing thread, so the last hash of a burst knows it is the last.
                let left = pending.subtract(1, ordering: .relaxed).newValue
                AuthMetrics.hashQueueDepth.record(left)
                if left == 0 { whenIdle?() }
                return result
            }
        } catch {
            // The pool has stopped: the work never ran.
            AuthMetrics.hashQueueDepth.record(pending.subtract(1, ordering: .relaxed).newValue)
            throw error
        }
    }

    private static let lowered = ThreadSpecificVariable<Box>()
    private final class Box: Sendable {}

    private static func lowerPriorityOnce(_ niceness: Int32) {
        guard niceness > 0, lowered.currentValue == nil else { return }
        lowered.currentValue = Box()
        #if os(Linux)
            // Linux keeps the nice value per thread: PRIO_PROCESS with who = 0 changes the calling thread only.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
