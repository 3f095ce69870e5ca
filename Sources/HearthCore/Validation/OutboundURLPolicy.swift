import Foundation

/// Which URLs the server itself may call (provider keys and discovery, Game Center certificates, blocking
/// functions, webhooks): `http` or `https` only, never a Unix socket (`http+unix:`, `unix:`), `file:`, a
/// link-local address or a cloud metadata service, whose answers (credentials) a configured URL must not be able
/// to reach. Loopback stays allowed: Hearth is self-hosted, and a provider or function on the same machine is a
/// normal set-up (and the tests' stand-in providers). The rule is checked where a URL is configured (a clear
/// 400, nothing stored) and again before every call; redirects are never followed (`OutboundHTTP`), so a URL
/// that passes cannot hand the call on to one that would not.
///
/// A name is judged as written: a DNS name that resolves to a refused address is not caught here (firewall the
/// metadata service from the server's user where that matters, docs/SECURITY.md).
public enum OutboundURLPolicy {
    /// Names of cloud metadata services (GCP, AWS, Azure, Alibaba, Oracle).
    static let metadataNames: Set<String> = [
        "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal",
        "metadata.azure.internal", "metadata.oraclecloud.com",
    ]
    /// Metadata addresses outside the link-local ranges: Alibaba's, Azure's wire server, AWS's IPv6 one.
    static let metadataIPv4: Set<UInt32> = [0x6464_64C8, 0xA83F_8110]
    static let metadataIPv6: Set<[UInt16]> = [[0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254]]

    /// Why the server may not call `url`, or nil when it may.
    public static func refusal(_ url: String) -> String? {
        guard let parsed = BrowserURL(url) else { return "is not a URL" }
        guard parsed.scheme == "http" || parsed.scheme == "https" else {
            return "must be an http or https URL, not \(parsed.scheme):"
        }
        guard let host = parsed.host else { return "has no host" }
        // The HTTP client reads the URL with Foundation's `URL`: it must reach the host a browser would read, or
        // a string that parses two ways could pass here and be called elsewhere.
        guard let foundation = URL(string: url), foundation.scheme?.lowercased() == parsed.scheme,
            let foundationHost = foundation.host,
            BrowserURL.parseHost(Substring(bracketed(foundationHost))) == host
        else { return "is read differently by browsers and by the HTTP client" }
        if let reason = refusal(host) { return reason }
        return nil
    }

    /// Foundation gives an IPv6 host with or without its brackets.
    static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// Why `host` may not be called: link-local, unspecified or a metadata service.
    static func refusal(_ host: BrowserURL.Host) -> String? {
        switch host {
        case .domain(let name):
            let name = name.hasSuffix(".") ? String(name.dropLast()) : name
            if metadataNames.contains(name) { return "names a cloud metadata service" }
        case .ipv4(let address):
            return refusal(ipv4: address)
        case .ipv6(let pieces):
            if let mapped = BrowserURL.Host.mappedIPv4(pieces) { return refusal(ipv4: mapped) }
            if pieces[0] & 0xffc0 == 0xfe80 { return "is a link-local address" }
            if pieces.allSatisfy({ $0 == 0 }) { return "is the unspecified address" }
            if metadataIPv6.contains(pieces) { return "is a cloud metadata address" }
        case .opaque:
            return "has no network host"
        }
        return nil
    }

    static func refusal(ipv4 address: UInt32) -> String? {
        if address >> 16 == 0xA9FE { return "is a link-local address" }
        if address >> 24 == 0 { return "is the unspecified address" }
        if metadataIPv4.contains(address) { return "is a cloud metadata address" }
        return nil
    }

    /// Checks a configured URL: `error` (the setting's own error code) with the setting's name and the reason.
    public static func check(_ url: String, setting: String, error: AuthErrorCode) throws(AuthError) {
        if let reason = refusal(url) { throw AuthError(error, "\(setting) \(reason)") }
    }
}
