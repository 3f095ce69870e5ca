import Foundation
import HearthCore

/// How `hearth serve` protects its listener (`http` in the config file): how long a client may keep a connection
/// idle or take to send a request, how many connections it holds at once, and which proxies may name the client.
public struct HTTPSettings: Sendable, Equatable, Codable {
    /// A connection with no request in flight is closed after this long. It also bounds how long a client may take
    /// to finish sending a request's headers (slowloris), since only a whole header block counts as activity.
    public var idleTimeoutSeconds: Int = 60
    /// From a request's headers to the end of its body; a client dripping a body slower than this is disconnected.
    public var requestTimeoutSeconds: Int = 30
    /// Connections held at once; further clients wait in the kernel's accept queue. Capped at start below the
    /// process's descriptor limit, so a flood of connections cannot exhaust descriptors the store needs.
    public var maxConnections: Int = 4096
    /// Reverse proxies (CIDRs such as `10.0.0.0/8` or `::1/128`) whose `X-Forwarded-For` and `Forwarded` headers
    /// are believed. Empty (the default): the socket's peer is the client, and those headers are ignored.
    public var trustedProxies: [String] = []

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case idleTimeoutSeconds, requestTimeoutSeconds, maxConnections, trustedProxies
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = HTTPSettings()
        idleTimeoutSeconds = try c.decode(.idleTimeoutSeconds, default: d.idleTimeoutSeconds)
        requestTimeoutSeconds = try c.decode(.requestTimeoutSeconds, default: d.requestTimeoutSeconds)
        maxConnections = try c.decode(.maxConnections, default: d.maxConnections)
        trustedProxies = try c.decode(.trustedProxies, default: d.trustedProxies)
    }

    /// What is wrong with these settings, if anything.
    public var problem: String? {
        if idleTimeoutSeconds < 1 { return "http.idleTimeoutSeconds must be at least 1" }
        if requestTimeoutSeconds < 1 { return "http.requestTimeoutSeconds must be at least 1" }
        if maxConnections < 1 { return "http.maxConnections must be at least 1" }
        for cidr in trustedProxies where IPNetwork(cidr) == nil {
            return "http.trustedProxies: \(cidr) is not an IP address or CIDR"
        }
        return nil
    }

    public var trustedNetworks: [IPNetwork] { trustedProxies.compactMap(IPNetwork.init) }
}
