import Testing

@testable import HearthCore

/// `BrowserURL` must read a URL as a browser does; the expected hosts are what Node's WHATWG `URL` (the standard's
/// reference behaviour, as Chromium implements it) gives for the same strings.
@Suite struct BrowserURLTests {
    @Test(arguments: [
        // Backslash is a slash in special schemes: the authority ends before it.
        ("https://evil.example\\@localhost/", "evil.example"),
        ("https://localhost\\@evil.example/", "localhost"),
        ("https:\\\\evil.example/", "evil.example"),
        ("https:/evil.example", "evil.example"),
        ("https:evil.example", "evil.example"),
        // Credentials: the host follows the last @.
        ("https://evil.example@localhost/", "localhost"),
        ("https://a@b@c/", "c"),
        // Case, a trailing dot (kept), tabs and newlines removed, spaces trimmed, percent-encoding decoded.
        ("HTTPS://LocalHost./x", "localhost."),
        (" \thttps://ex\nample.com/ ", "example.com"),
        ("https://%6c%6fcalhost/", "localhost"),
        // IPv6 and IPv4 in every form inet_aton and browsers accept.
        ("https://[::1]:8080/", "[0:0:0:0:0:0:0:1]"),
        ("https://[::ffff:169.254.169.254]/", "[0:0:0:0:0:ffff:a9fe:a9fe]"),
        ("https://[::1.2.3.4]/", "[0:0:0:0:0:0:102:304]"),
        ("http://2852039166/", "169.254.169.254"),
        ("http://0xA9.0xFE.0xA9.0xFE/", "169.254.169.254"),
        ("http://0251.0376.0251.0376/", "169.254.169.254"),
        ("http://169.254.43518/", "169.254.169.254"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://0/", "0.0.0.0"),
        // Not special: no backslash rule, an opaque host.
        ("javascript://localhost/%0aalert(1)", "localhost"),
        ("hearth-p://firebaseauth/link", "firebaseauth"),
    ])
    func hostsAreReadAsBrowsersReadThem(url: String, host: String) throws {
        let parsed = try #require(BrowserURL(url), "\(url) parses")
        #expect(parsed.host?.description == host, "\(url)")
    }

    @Test(arguments: [
        "http://a:65536/", "https://a b/", "https://exa%20mple/", "https://1.2.3.4.5/", "https://1.2.3.256/",
        "https://foo.0x/", "https://foo.09/", "https://[fe80::1%25eth0]/", "https://[1:2:3:4:5:6:7:8:9]/",
        "https://[1::2::3]/", "https:///", "no scheme", "1http://a/",
        // Browsers map this one (IDNA) to localhost; Hearth refuses hosts outside ASCII instead.
        "https://ｌｏｃａｌｈｏｓｔ/",
    ])
    func stringsBrowsersRefuseDoNotParse(url: String) {
        #expect(BrowserURL(url) == nil, "\(url)")
    }

    @Test func portsSchemesAndCredentials() throws {
        #expect(BrowserURL("https://app.example.com:443/x")?.port == nil)
        #expect(BrowserURL("https://app.example.com:0443/x")?.port == nil)
        #expect(BrowserURL("https://localhost:/x")?.port == nil)
        #expect(BrowserURL("http://localhost:8080/x")?.port == 8080)
        let url = try #require(BrowserURL("HTTPS://user:pw@localhost/p?q#f"))
        #expect(url.scheme == "https" && url.username == "user" && url.password == "pw" && url.hasCredentials)
        #expect(url.rest == "/p?q#f")
        #expect(BrowserURL("javascript:alert(1)")?.host == nil)
        #expect(BrowserURL("file:///etc/passwd")?.host == nil)
    }

    @Test func theOutboundPolicyAllowsOnlyHTTPToNetworkHostsOutsideLinkLocalAndMetadata() {
        for allowed in [
            "https://accounts.example.com/.well-known/openid-configuration", "http://127.0.0.1:8080/fn",
            "http://localhost:9000/keys", "http://[::1]:9000/keys", "https://static.gc.apple.com/public/gc.cer",
        ] {
            #expect(OutboundURLPolicy.refusal(allowed) == nil, "\(allowed)")
        }
        for refused in [
            "http://169.254.169.254/latest/meta-data/", "http://2852039166/", "http://0xA9.0xFE.0xA9.0xFE/",
            "http://169.254.43518/", "http://[fe80::1]/", "http://[::ffff:169.254.169.254]/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://metadata.google.internal/computeMetadata/v1/", "http://Metadata.Google.Internal./",
            "http://metadata/", "http://instance-data/latest/", "http://100.100.100.200/", "http://[fd00:ec2::254]/",
            "http://0.0.0.0:8080/", "http://[::]/", "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers",
            "unix:///var/run/docker.sock", "file:///etc/passwd", "ftp://example.com/", "javascript://localhost/x",
            "https://localhost\\@169.254.169.254/", "https://169.254.169.254\\@localhost/", "not a url",
        ] {
            #expect(OutboundURLPolicy.refusal(refused) != nil, "\(refused)")
        }
    }

    /// The providers' real endpoints, the defaults, must all pass: the rule may not refuse a working set-up.
    @Test func everyDefaultProviderURLMayBeCalled() {
        let apple = AppleSettings(clientIds: ["a"])
        let google = GoogleSettings(clientIds: ["g"])
        let facebook = FacebookSettings(appId: "f")
        let twitter = TwitterSettings(consumerKey: "k", consumerSecret: "s")
        let urls =
            [apple.keysUrl, apple.tokenUrl, apple.revokeUrl, google.keysUrl, google.tokenInfoUrl, google.userInfoUrl]
            + [facebook.graphUrl, facebook.keysUrl, twitter.requestTokenUrl, twitter.accessTokenUrl]
            + [twitter.verifyCredentialsUrl] + GameCenterSettings(bundleIds: ["b"]).publicKeyUrlPrefixes
        for url in urls { #expect(OutboundURLPolicy.refusal(url) == nil, "\(url)") }
    }

    @Test func redirectsGoOnlyToHTTPSOnAuthorizedHostsOrHTTPOnLoopback() {
        var project = ProjectConfig(projectID: "p", authorizedDomains: ["localhost", "app.example.com", "127.0.0.1"])
        project.emailActionURL = "https://auth.example.com/__/auth/action"
        for allowed in [
            "https://app.example.com/done", "https://APP.example.com:8443/x", "http://localhost:3000/finish",
            "http://127.0.0.1/x", "https://auth.example.com/next", "https:app.example.com/x",
        ] {
            #expect(project.authorizesRedirect(to: allowed), "\(allowed)")
        }
        for refused in [
            // The cases: browsers go to evil.example; a javascript: URL with an authorized host.
            "https://evil.example\\@localhost/", "https://evil.example\\@app.example.com/",
            "javascript://localhost/%0aalert(1)", "javascript://app.example.com/%0aalert(document.cookie)",
            "data://app.example.com/x", "ftp://app.example.com/x", "file://localhost/etc/passwd",
            // http only to loopback; credentials never; hosts exactly.
            "http://app.example.com/x", "https://user@app.example.com/x", "https://app.example.com.evil.example/",
            "https://evil-app.example.com/", "https://app.example.com./", "https://evil.example/app.example.com",
            "https://evil.example/?https://app.example.com", "not a url", "",
            // A browser would stay on app.example.com, but Foundation, re-serialising it, might not.
            "https://app.example.com\\@evil.example/", " https://app.example.com/", "https://app.example.com/\tx",
        ] {
            #expect(!project.authorizesRedirect(to: refused), "\(refused)")
        }
        // An action page served over http makes its own origin a place to return to, and nothing else on http.
        project.emailActionURL = "http://hearth.internal:8080/__/auth/action"
        #expect(project.authorizesRedirect(to: "http://hearth.internal:8080/done"))
        #expect(!project.authorizesRedirect(to: "http://hearth.internal:9090/done"))
        #expect(project.authorizesDomain("APP.example.com") && !project.authorizesDomain("evil.example"))
    }
}
