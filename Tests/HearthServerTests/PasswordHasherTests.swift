import HearthCore
import HearthEngine
import Synchronization
import Testing

/// The hashing threads tell the server when they run dry; `hearth serve` gives scrypt's working buffers back to the
/// system there (MallocSettings), so a burst of sign-ins reuses them and memory returns to idle after it.
@Suite("Password hashing threads")
struct PasswordHasherTests {
    @Test func eachHashThatLeavesNothingQueuedReportsIdle() async throws {
        let idle = Atomic<Int>(0)
        let hasher = PasswordHasher(
            threads: 1, parameters: ScryptParameters(logN: 10, r: 8, p: 1),
            whenIdle: { idle.add(1, ordering: .relaxed) })
        let first = try await hasher.hash("pass-word-1")
        #expect(idle.load(ordering: .relaxed) == 1)
        #expect(try await hasher.verify("pass-word-1", against: first))
        #expect(idle.load(ordering: .relaxed) == 2)
        try await hasher.shutdown()
    }

    @Test func aBurstReportsIdleWhenItsLastHashEnds() async throws {
        let idle = Atomic<Int>(0)
        let hasher = PasswordHasher(
            threads: 1, parameters: ScryptParameters(logN: 10, r: 8, p: 1),
            whenIdle: { idle.add(1, ordering: .relaxed) })
        try await withThrowingTaskGroup(of: PasswordHash.self) { group in
            for i in 0..<8 { group.addTask { try await hasher.hash("pass-word-\(i)") } }
            for try await _ in group {}
        }
        // However the burst interleaved, its last hash found nothing behind it.
        #expect(idle.load(ordering: .relaxed) >= 1)
        try await hasher.shutdown()
    }
}
