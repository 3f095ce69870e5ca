import HearthStore
import Testing

/// The derived values both stores compute the same way, on their own: rate-limit windows and tenant key ranges.
@Suite("Store support rules")
struct StoreSupportTests {
    @Test func aWindowStartsAtTheLastMultipleOfItsLength() {
        #expect(StoreSupport.windowStart(nowMs: 1_700_000_000_000, windowSeconds: 60) == 1_699_999_980_000)
        #expect(StoreSupport.windowStart(nowMs: 1_699_999_980_000, windowSeconds: 60) == 1_699_999_980_000)
        #expect(StoreSupport.windowStart(nowMs: 1_700_000_039_999, windowSeconds: 60) == 1_699_999_980_000)
        #expect(StoreSupport.windowStart(nowMs: 1_700_000_040_000, windowSeconds: 60) == 1_700_000_040_000)
        #expect(StoreSupport.windowStart(nowMs: 1_700_000_000_123, windowSeconds: 3600) == 1_699_999_200_000)
    }

    @Test func aWindowIsNeverShorterThanOneSecond() {
        #expect(StoreSupport.windowStart(nowMs: 1_700_000_000_456, windowSeconds: 0) == 1_700_000_000_000)
        #expect(StoreSupport.windowStart(nowMs: 1_700_000_000_456, windowSeconds: -5) == 1_700_000_000_000)
    }

    @Test func aPrefixRangeEndsAtTheNextStringOfItsLength() {
        let end = StoreSupport.prefixEnd("p1/tenants/")
        #expect(end == "p1/tenants0")
        for inside in ["p1/tenants/", "p1/tenants/a", "p1/tenants/~~~", "p1/tenants/\u{FFFF}"] {
            #expect(inside >= "p1/tenants/" && Array(inside.utf8).lexicographicallyPrecedes(Array(end.utf8)))
        }
        for outside in ["p1/tenants", "p1/tenants0", "p1/tenantsz", "p2/tenants/a"] {
            let bytes = Array(outside.utf8)
            #expect(
                bytes.lexicographicallyPrecedes(Array("p1/tenants/".utf8))
                    || !bytes.lexicographicallyPrecedes(Array(end.utf8)))
        }
    }
}
