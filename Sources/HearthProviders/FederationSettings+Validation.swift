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
        return found
    }
}
