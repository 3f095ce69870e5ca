import Foundation
import HearthCore
import Testing

@Suite struct TimestampTests {
    /// The arithmetic formatter agrees with Foundation's ISO 8601 formatter across leap days, century years, the
    /// epoch's both sides and the ends of days and years, with the milliseconds Firebase shows.
    @Test func rfc3339MillisecondsMatchesFoundation() {
        var instants: [Int64] = [0, -1, 1, 999, 1000, -1000, -86_400_000, 951_782_400_000, 951_868_799_999,
            4_107_542_399_999, 4_107_542_400_000, 253_402_300_799_999]
        var ms: Int64 = -2_208_988_800_000  // 1900-01-01
        while ms < 4_102_444_800_000 {  // 2100-01-01
            instants.append(ms)
            ms += 86_399_997 * 37 + 123
        }
        for ms in instants {
            let date = Date(millisecondsSince1970: ms)
            let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            let whole = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds)))
            let fraction = String(ms - seconds * 1000)
            let expected = whole.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
            #expect(date.rfc3339Milliseconds == expected, "\(ms)")
        }
    }

    /// Before 1582 Foundation switches to the Julian calendar; RFC 3339 (and Google's `Timestamp`) count in the
    /// proleptic Gregorian one.
    @Test func earlyDatesAreProlepticGregorian() {
        #expect(Date(millisecondsSince1970: -62_135_596_800_000).rfc3339Milliseconds == "0001-01-01T00:00:00.000Z")
        #expect(Date(millisecondsSince1970: -12_219_292_800_001).rfc3339Milliseconds == "1582-10-14T23:59:59.999Z")
    }
}
