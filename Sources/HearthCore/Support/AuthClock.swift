import Foundation

/// The time as the server sees it, injectable so tests can move it.
public struct AuthClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    public func now() -> Date { read() }

    public static let system = AuthClock { Date() }
}

extension Date {
    /// Whole milliseconds since 1970, the unit Firebase uses for account timestamps: rounded down (a stored time
    /// is never later than the moment it records, so a key that activates "now" is active now), after half a
    /// microsecond's allowance, so a Date made from milliseconds gives them back (…792 ms is held as
    /// 1795395165.7919998 s, a Double's grain there being about a quarter of a microsecond).
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000 + 0.0005).rounded(.down)) }
    /// Whole seconds since 1970, the unit of JWT claims and `validSince`.
    public var secondsSince1970: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    public init(millisecondsSince1970 ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }

    /// RFC 3339 in UTC with exactly three fractional digits, from the whole milliseconds (a formatter working on
    /// the floating-point seconds can print …791 for …792).
    public var rfc3339Milliseconds: String {
        let ms = millisecondsSince1970
        let whole = Date(timeIntervalSince1970: Double(ms.floorDiv(1000)))
        let text = Date.ISO8601FormatStyle().format(whole)  // 2026-11-23T01:12:45Z
        let fraction = String(ms - ms.floorDiv(1000) * 1000)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }
}

extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 { self >= 0 ? self / d : (self - d + 1) / d }
}
