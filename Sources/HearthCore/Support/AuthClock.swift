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
    /// Whole milliseconds since 1970, the unit Firebase uses for account timestamps.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
    /// Whole seconds since 1970, the unit of JWT claims and `validSince`.
    public var secondsSince1970: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    public init(millisecondsSince1970 ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }
}
