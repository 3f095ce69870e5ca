import HearthCore
import Testing

/// Session families and audit events are keyed by these ids: each must be new, and ids made later must sort later,
/// even with a random source that repeats itself and within one microsecond.
@Suite struct TimeOrderedIDTests {
    @Test func idsMadeLaterSortLaterAndNeverRepeat() {
        let constant = SecureRandom { count in [UInt8](repeating: 7, count: count) }
        let ids = (0..<5_000).map { _ in constant.timeOrderedID(randomBytes: 12) }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 16 + 16 })
    }
}
