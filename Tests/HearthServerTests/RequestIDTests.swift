import Testing

@testable import HearthServer

@Suite("Request ids")
struct RequestIDTests {
    /// 16 lowercase hex digits, every digit written (leading zeros too), none repeated within a process.
    @Test func madeIdsAreSixteenHexDigitsAndDistinct() {
        let ids = (0..<4096).map { _ in RequestID.make() }
        let hex = Set("0123456789abcdef".utf8)
        #expect(ids.allSatisfy { $0.utf8.count == 16 && $0.utf8.allSatisfy(hex.contains) })
        #expect(Set(ids).count == ids.count)
        // A leading zero digit appears in about one id in sixteen: it must be written, not dropped.
        #expect(ids.contains { $0.hasPrefix("0") })
    }
}
