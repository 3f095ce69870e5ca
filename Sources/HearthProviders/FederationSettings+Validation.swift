import Foundation
import HearthCore

extension FederationSettings {
    /// Problems an operator must fix before the server starts, so a misconfigured provider is found at start
    /// rather than at a user's first sign-in.
    public var problems: [String] {
        var found: [String] = []
        if let apple {
            if apple.clientIds.isEmpty {
                found.append("apple.clientIds must list the app's bundle IDs or Services IDs")
            }
            let revocation = [apple.teamId, apple.keyId, apple.privateKey ?? apple.privateKeyFile]
            if revocation.contains(where: { $0 != nil }) {
                if revocation.contains(where: { $0 == nil }) {
                    found.append("apple: token revocation needs teamId, keyId and privateKey (or privateKeyFile)")
                } else if (try? AppleTokenRevocation.privateKey(apple)) == nil {
                    found.append("apple: the private key is not a readable P-256 .p8 key")
                }
            }
        }
        if let google, google.clientIds.isEmpty { found.append("google.clientIds must list the OAuth client IDs") }
        if let facebook, facebook.appId.isEmpty { found.append("facebook.appId is required") }
        for (id, oidc) in oidc.sorted(by: { $0.key < $1.key }) {
            if oidc.clientIds.isEmpty { found.append("\(id).clientIds must list the client ids") }
            if URL(string: oidc.issuer)?.scheme == nil { found.append("\(id).issuer must be a URL") }
        }
        if let twitter, twitter.consumerKey.isEmpty || twitter.consumerSecret.isEmpty {
            found.append("twitter needs consumerKey and consumerSecret")
        }
        for (id, oauth) in oauth.sorted(by: { $0.key < $1.key }) {
            if oauth.clientId.isEmpty || oauth.clientSecret.isEmpty {
                found.append("oauth.\(id) needs clientId and clientSecret")
            }
            for url in [oauth.authorizationUrl, oauth.tokenUrl, oauth.userInfoUrl, oauth.emailsUrl].compactMap({ $0 })
            where URL(string: url)?.host == nil {
                found.append("oauth.\(id): \(url) is not an absolute URL")
            }
        }
        for (setting, url) in calledURLs {
            if let reason = OutboundURLPolicy.refusal(url) { found.append("\(setting) \(reason)") }
        }
        return found
    }

    /// Every URL the server itself calls for these providers, by setting name (`OutboundURLPolicy` applies).
    var calledURLs: [(String, String)] {
        var urls: [(String, String)] = []
        if let apple {
            urls += [
                ("apple.keysUrl", apple.keysUrl), ("apple.tokenUrl", apple.tokenUrl),
                ("apple.revokeUrl", apple.revokeUrl),
            ]
        }
        if let google {
            urls += [
                ("google.keysUrl", google.keysUrl), ("google.tokenInfoUrl", google.tokenInfoUrl),
                ("google.userInfoUrl", google.userInfoUrl), ("google.tokenUrl", google.tokenUrl),
            ]
        }
        if let facebook { urls += [("facebook.graphUrl", facebook.graphUrl), ("facebook.keysUrl", facebook.keysUrl)] }
        if let twitter {
            urls += [
                ("twitter.requestTokenUrl", twitter.requestTokenUrl),
                ("twitter.accessTokenUrl", twitter.accessTokenUrl),
                ("twitter.verifyCredentialsUrl", twitter.verifyCredentialsUrl),
            ]
        }
        if let gameCenter {
            urls += gameCenter.publicKeyUrlPrefixes.map { ("gameCenter.publicKeyUrlPrefixes", $0) }
        }
        for (id, oidc) in oidc.sorted(by: { $0.key < $1.key }) {
            urls.append(("\(id).issuer", oidc.issuer))
            urls += [("\(id).keysUrl", oidc.keysUrl), ("\(id).tokenUrl", oidc.tokenUrl)].compactMap { name, url in
                url.map { (name, $0) }
            }
        }
        for (id, oauth) in oauth.sorted(by: { $0.key < $1.key }) {
            urls += [("tokenUrl", oauth.tokenUrl), ("userInfoUrl", oauth.userInfoUrl), ("emailsUrl", oauth.emailsUrl)]
                .compactMap { name, url in url.map { ("oauth.\(id).\(name)", $0) } }
        }
        return urls
    }
}
