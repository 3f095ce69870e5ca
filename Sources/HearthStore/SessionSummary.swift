import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A live session as an operator sees it: its family's id and what was recorded when it started.
///
/// `lastUsedAt` is read from the family's newest token (a rotation writes one anyway), so refreshes pay no extra
/// write for it; a project that does not rotate refresh tokens therefore shows the sign-in time.
public struct SessionSummary: Sendable, Equatable {
    /// The family's id: opaque, random, and never the token or its hash.
    public var sessionID: String
    public var signInProvider: String
    public var createdAt: Date
    public var lastUsedAt: Date
    public var ipPrefix: String?
    public var userAgent: String?

    public init(
        sessionID: String, signInProvider: String, createdAt: Date, lastUsedAt: Date, ipPrefix: String?,
        userAgent: String?
    ) {
        self.sessionID = sessionID
        self.signInProvider = signInProvider
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.ipPrefix = ipPrefix
        self.userAgent = userAgent
    }
}

/// What a session keeps of the client that started it: the network, not the address, and a bounded User-Agent.
public enum SessionClient {
    public static let maxUserAgentLength = 256

    /// The /24 of an IPv4 address (`203.0.113.0/24`) or the /48 of an IPv6 one (`2001:db8:1::/48`); nil for
    /// anything that is not an address.
    public static func prefix(of address: String?) -> String? {
        guard let address, !address.isEmpty else { return nil }
        // Bytes, not Foundation's `contains` of a string (a CFString search, ~4 µs on every sign-in).
        if address.utf8.contains(UInt8(ascii: ":")) {
            var bytes = in6_addr()
            guard inet_pton(AF_INET6, address, &bytes) == 1 else { return nil }
            let b = withUnsafeBytes(of: bytes) { Array($0) }
            // A v4-mapped address is a v4 client.
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff {
                return "\(b[12]).\(b[13]).\(b[14]).0/24"
            }
            let groups = (0..<3).map { String(UInt16(b[2 * $0]) << 8 | UInt16(b[2 * $0 + 1]), radix: 16) }
            return groups.joined(separator: ":") + "::/48"
        }
        var bytes = in_addr()
        guard inet_pton(AF_INET, address, &bytes) == 1 else { return nil }
        let b = withUnsafeBytes(of: bytes) { Array($0) }
        return "\(b[0]).\(b[1]).\(b[2]).0/24"
    }

    /// The User-Agent cut to its first `maxUserAgentLength` characters; nil when empty.
    public static func userAgent(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return String(value.prefix(maxUserAgentLength))
    }
}
