/// Identity providers configured at run time through the Identity Platform admin API shapes
/// (`/v2/projects/{p}/defaultSupportedIdpConfigs/{google.com|facebook.com|apple.com}` and
/// `/v2/projects/{p}/oauthIdpConfigs/{oidc.<name>}`), stored in the project's run-time settings under
/// `idpConfigs` and laid over the config file's `federation`.
///
/// Mapping: `clientId` is Google's client id, Facebook's app id (`clientSecret` its app secret), Apple's Services
/// ID (added to `appleSignInConfig.bundleIds`, whose `codeFlowConfig` gives the team, key id and private key),
/// and an OIDC provider's client id with its `issuer`. `enabled: false` turns a provider off, even one the
/// config file sets up.
public enum IdentityProviderConfigs {
    public static let builtIn = ProviderID.builtIn

    public enum Kind: Sendable {
        /// `defaultSupportedIdpConfigs`: Google, Facebook, Apple.
        case builtIn
        /// `oauthIdpConfigs`: `oidc.<name>`.
        case oidc

        public var collection: String { self == .builtIn ? "defaultSupportedIdpConfigs" : "oauthIdpConfigs" }

        public func owns(_ id: String) -> Bool {
            self == .builtIn ? IdentityProviderConfigs.builtIn.contains(id) : (id.hasPrefix("oidc.") && id.count > 5)
        }
    }

    /// Applies one stored config to `federation`.
    static func apply(_ id: String, _ config: [String: JSONValue], to f: inout FederationSettings) throws(AuthError) {
        let enabled = config["enabled"]?.boolValue ?? true
        let clientID = config["clientId"]?.stringValue
        switch id {
        case ProviderID.google:
            guard enabled else { f.google = nil; return }
            guard let clientID else { throw AuthError(.missingOAuthClientID) }
            var google = f.google ?? GoogleSettings(clientIds: [])
            google.clientIds = [clientID]
            if let secret = config["clientSecret"]?.stringValue { google.clientSecret = secret }
            f.google = google
        case ProviderID.facebook:
            guard enabled else { f.facebook = nil; return }
            guard let clientID else { throw AuthError(.missingOAuthClientID) }
            var facebook = f.facebook ?? FacebookSettings(appId: clientID)
            facebook.appId = clientID
            if let secret = config["clientSecret"]?.stringValue { facebook.appSecret = secret }
            f.facebook = facebook
        case ProviderID.apple:
            guard enabled else { f.apple = nil; return }
            let apple = config["appleSignInConfig"]
            let bundleIDs = apple?["bundleIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let clientIDs = bundleIDs + (clientID.map { [$0] } ?? [])
            guard !clientIDs.isEmpty else {
                throw AuthError(.missingOAuthClientID, "give clientId or appleSignInConfig.bundleIds")
            }
            var settings = f.apple ?? AppleSettings(clientIds: [])
            settings.clientIds = clientIDs
            if let flow = apple?["codeFlowConfig"] {
                settings.teamId = flow["teamId"]?.stringValue ?? settings.teamId
                settings.keyId = flow["keyId"]?.stringValue ?? settings.keyId
                settings.privateKey = flow["privateKey"]?.stringValue ?? settings.privateKey
            }
            f.apple = settings
        case ProviderID.twitter:
            // Twitter's API key and secret (OAuth 1.0a consumer key and secret).
            guard enabled else { f.twitter = nil; return }
            guard let clientID else { throw AuthError(.missingOAuthClientID) }
            guard let secret = config["clientSecret"]?.stringValue ?? f.twitter?.consumerSecret else {
                throw AuthError(.invalidConfig, "twitter.com needs clientSecret (the API secret)")
            }
            var twitter = f.twitter ?? TwitterSettings(consumerKey: clientID, consumerSecret: secret)
            twitter.consumerKey = clientID
            twitter.consumerSecret = secret
            f.twitter = twitter
        case _ where OAuthSettings.providers.contains(id):
            guard enabled else { f.oauth[id] = nil; return }
            guard let clientID else { throw AuthError(.missingOAuthClientID) }
            guard let secret = config["clientSecret"]?.stringValue ?? f.oauth[id]?.clientSecret else {
                throw AuthError(.invalidConfig, "\(id) signs in through the browser and needs clientSecret")
            }
            var settings = f.oauth[id] ?? OAuthSettings(clientId: clientID, clientSecret: secret)
            settings.clientId = clientID
            settings.clientSecret = secret
            f.oauth[id] = settings
        default:
            guard Kind.oidc.owns(id) else { throw AuthError(.invalidProviderID, id) }
            guard enabled else { f.oidc[id] = nil; return }
            guard let clientID else { throw AuthError(.missingOAuthClientID) }
            guard let issuer = config["issuer"]?.stringValue, !issuer.isEmpty else { throw AuthError(.missingIssuer) }
            // Discovery and keys are fetched from the issuer: only where `OutboundURLPolicy` lets the server call.
            try OutboundURLPolicy.check(issuer, setting: "issuer", error: .invalidConfig)
            var oidc = f.oidc[id] ?? OIDCSettings(issuer: issuer, clientIds: [clientID])
            oidc.issuer = issuer
            oidc.clientIds = [clientID]
            // `responseType.code` with a secret: the browser's authorization-code flow.
            if config["responseType"]?["code"]?.boolValue == true {
                guard let secret = config["clientSecret"]?.stringValue ?? oidc.clientSecret else {
                    throw AuthError(.invalidConfig, "responseType.code needs clientSecret")
                }
                oidc.clientSecret = secret
            } else if config["responseType"] != nil {
                oidc.clientSecret = nil
            } else if let secret = config["clientSecret"]?.stringValue {
                oidc.clientSecret = secret
            }
            f.oidc[id] = oidc
        }
    }

    /// The admin API's view of a provider as the project now has it; nil when it is not set up.
    public static func view(_ id: String, in config: ProjectConfig, displayName: String? = nil) -> JSONValue? {
        let f = config.federation
        var o: [String: JSONValue] = ["enabled": true]
        switch id {
        case ProviderID.google:
            guard let google = f.google else { return nil }
            o["clientId"] = google.clientIds.first.map(JSONValue.string)
        case ProviderID.facebook:
            guard let facebook = f.facebook else { return nil }
            o["clientId"] = .string(facebook.appId)
            o["clientSecret"] = facebook.appSecret.map(JSONValue.string)
        case ProviderID.apple:
            guard let apple = f.apple else { return nil }
            var appleConfig: [String: JSONValue] = ["bundleIds": .array(apple.clientIds.map(JSONValue.string))]
            if let team = apple.teamId, let key = apple.keyId {
                appleConfig["codeFlowConfig"] = ["teamId": .string(team), "keyId": .string(key)]
            }
            o["appleSignInConfig"] = .object(appleConfig)
        case ProviderID.twitter:
            guard let twitter = f.twitter else { return nil }
            o["clientId"] = .string(twitter.consumerKey)
            o["clientSecret"] = .string(twitter.consumerSecret)
        case _ where OAuthSettings.providers.contains(id):
            guard let oauth = f.oauth[id] else { return nil }
            o["clientId"] = .string(oauth.clientId)
            o["clientSecret"] = .string(oauth.clientSecret)
        default:
            guard let oidc = f.oidc[id] else { return nil }
            o["clientId"] = oidc.clientIds.first.map(JSONValue.string)
            o["issuer"] = .string(oidc.issuer)
            o["displayName"] = displayName.map(JSONValue.string)
            o["clientSecret"] = oidc.clientSecret.map(JSONValue.string)
            o["responseType"] = ["idToken": true, "code": .bool(oidc.clientSecret != nil)]
        }
        let kind: Kind = builtIn.contains(id) ? .builtIn : .oidc
        o["name"] = .string("projects/\(config.projectID)/\(kind.collection)/\(id)")
        return .object(o)
    }
}
