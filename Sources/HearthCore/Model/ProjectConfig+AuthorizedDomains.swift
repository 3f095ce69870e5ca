/// Where the project's pages may send a browser (a continue URL after an e-mail action, the auth handler's return
/// to the app): the one rule, read as a browser reads the URL (`BrowserURL`).
extension ProjectConfig {
    /// Whether a browser may be sent to `url`: `https`, or `http` to loopback or to the action page's own `http`
    /// origin; no credentials in the URL; the host exactly one of `authorizedDomains` or the action page's host.
    /// No backslash, space or control character either: browsers and Foundation (which re-serialises the URL
    /// when the action page appends its parameters) would read such a string differently.
    public func authorizesRedirect(to url: String) -> Bool {
        guard !url.unicodeScalars.contains(where: { $0 == "\\" || $0.value <= 0x20 || $0.value == 0x7f }),
            let target = BrowserURL(url), let host = target.host, !target.hasCredentials
        else { return false }
        switch target.scheme {
        case "https": break
        case "http":
            let page = BrowserURL(self.emailActionURL)
            let ownOrigin = page?.scheme == "http" && page?.host == host && page?.port == target.port
            guard host.isLoopback || ownOrigin else { return false }
        default: return false
        }
        return authorizesDomain(host)
    }

    /// Whether `host` is one of `authorizedDomains` or the action page's host, compared exactly (case aside, as
    /// hosts are lower-cased when parsed).
    public func authorizesDomain(_ host: BrowserURL.Host) -> Bool {
        if self.authorizedDomains.contains(where: { BrowserURL.parseHost(Substring($0)) == host }) { return true }
        return BrowserURL(self.emailActionURL)?.host == host
    }

    /// `authorizesDomain` for a bare domain (`linkDomain`).
    public func authorizesDomain(_ domain: String) -> Bool {
        BrowserURL.parseHost(Substring(domain)).map(authorizesDomain) ?? false
    }
}
