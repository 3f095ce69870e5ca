#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, or a CIDR block of them (`192.168.0.0/16`, `fd00::/8`, `127.0.0.1`).
public struct IPNetwork: Sendable, Equatable {
    /// 4 or 16 bytes.
    let address: [UInt8]
    let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.address = address
    }

    /// Whether `ip` (an address in text form) lies in this network. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`)
    /// counts as its IPv4 address.
    public func contains(_ ip: String) -> Bool {
        guard let candidate = Self.bytes(ip) else { return false }
        return contains(bytes: candidate)
    }

    func contains(bytes candidate: [UInt8]) -> Bool {
        guard candidate.count == address.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address, candidate) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// The address's bytes; IPv4-mapped IPv6 addresses become their 4 IPv4 bytes. Nil when not an address.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }
}
