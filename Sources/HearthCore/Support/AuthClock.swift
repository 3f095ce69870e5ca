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
    /// the floating-point seconds can print …791 for …792). Written by arithmetic on the civil calendar: a user's
    /// timestamps are formatted on every lookup, and Foundation's formatter builds calendar component sets and prints
    /// its digits through printf on every call.
    public var rfc3339Milliseconds: String {
        let ms = millisecondsSince1970
        let seconds = ms.floorDiv(1000)
        let days = seconds.floorDiv(86_400)
        let (year, month, day) = Self.civil(daysSince1970: days)
        guard (0...9999).contains(year) else {
            let text = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(seconds)))
            return text.dropLast() + "." + Self.digits(ms - seconds * 1000, 3) + "Z"
        }
        let inDay = seconds - days * 86_400
        return Self.digits(year, 4) + "-" + Self.digits(month, 2) + "-" + Self.digits(day, 2) + "T"
            + Self.digits(inDay / 3600, 2) + ":" + Self.digits(inDay / 60 % 60, 2) + ":" + Self.digits(inDay % 60, 2)
            + "." + Self.digits(ms - seconds * 1000, 3) + "Z"
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSince1970 + 719_468
        let era = z.floorDiv(146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func digits(_ n: Int64, _ width: Int) -> String {
        let text = String(n)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 { self >= 0 ? self / d : (self - d + 1) / d }
}
