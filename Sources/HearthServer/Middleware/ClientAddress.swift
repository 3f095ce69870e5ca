import Foundation
import HTTPTypes
import NIOCore

/// Decides the client's IP address, which abuse limits count by. Without trusted proxies it is the socket's peer
/// and forwarding headers are ignored (anyone can send them). When the peer is a trusted proxy, the client is the
/// right-most address in `X-Forwarded-For` (or, without that header, `Forwarded: for=`) that is not itself a
/// trusted proxy: entries further left were written by whoever the nearest untrusted hop was, so cannot be believed.
public enum ClientAddress {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    /// The socket peer's address as text. An IPv4 peer is printed here rather than by `inet_ntop`, whose `sprintf`
    /// cost every request about 1% of a `GET /`; IPv6 and other families keep NIO's text.
    public static func text(of peer: SocketAddress?) -> String? {
        guard case .v4(let v4)? = peer else { return peer?.ipAddress }
        // `s_addr` holds the address in network order: its first byte in memory is the first octet.
        return withUnsafeBytes(of: v4.address.sin_addr.s_addr) { octets in
            String(unsafeUninitializedCapacity: 15) { text in
                var end = 0
                for (index, octet) in octets.enumerated() {
                    if index > 0 {
                        text[end] = UInt8(ascii: ".")
                        end += 1
                    }
                    if octet >= 100 {
                        text[end] = UInt8(ascii: "0") + octet / 100
                        end += 1
                    }
                    if octet >= 10 {
                        text[end] = UInt8(ascii: "0") + octet / 10 % 10
                        end += 1
                    }
                    text[end] = UInt8(ascii: "0") + octet % 10
                    end += 1
                }
                return end
            }
        }
    }

    public static func client(peer: String?, headers: HTTPFields, trusted: [IPNetwork]) -> String? {
        guard let peer, trusted.contains(where: { $0.contains(peer) }) else { return peer }
        let forwardedFor = headers[values: xForwardedFor]
        var hops =
            forwardedFor.isEmpty
            ? headers[values: forwarded].flatMap(forwardedClients)
            : forwardedFor.flatMap { $0.split(separator: ",").map { bareAddress($0) } }
        var nearest = peer
        while let hop = hops.popLast() {
            // Garbage or "unknown" cannot be counted by: stop at the last hop that is known.
            guard IPNetwork.bytes(hop) != nil else { return nearest }
            if !trusted.contains(where: { $0.contains(hop) }) { return hop }
            nearest = hop
        }
        return nearest
    }

    /// The `for=` values of a `Forwarded` header (RFC 7239), in order.
    static func forwardedClients(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { element in
            for pair in element.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" {
                    return bareAddress(kv[1])
                }
            }
            return nil
        }
    }

    /// `"[2001:db8::1]:4711"`, `192.0.2.1:80`, ` 192.0.2.1 ` → the address alone.
    static func bareAddress(_ raw: Substring) -> String {
        var s = raw.trimmingCharacters(in: .whitespaces)
        if s.hasPrefix("\""), s.hasSuffix("\""), s.count >= 2 { s = String(s.dropFirst().dropLast()) }
        if s.hasPrefix("["), let close = s.firstIndex(of: "]") { return String(s[s.index(after: s.startIndex)..<close]) }
        if s.filter({ $0 == ":" }).count == 1, let colon = s.firstIndex(of: ":") { return String(s[..<colon]) }
        return s
    }
}
