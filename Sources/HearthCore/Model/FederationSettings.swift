/// How a project signs users in with other identity providers: which providers it accepts, the client ids
/// their tokens must be issued to, and where each provider's endpoints are. Every URL defaults to the
/// provider's real one and can be pointed elsewhere (a test identity provider, an air-gapped mirror).
///
/// Config file key: `federation` in a project.
public struct FederationSettings: Sendable, Equatable, Codable {
    /// Firebase's "create multiple accounts for each identity provider": when false (the default) an e-mail
    /// belongs to one account, and a provider e-mail that matches one is linked or needs confirmation.
    public var allowDuplicateEmails: Bool = false
    public var apple: AppleSettings?
    public var google: GoogleSettings?
    public var facebook: FacebookSettings?
    /// Generic OpenID Connect providers by provider id (`oidc.<name>`).
    public var oidc: [String: OIDCSettings] = [:]
    /// Game Center (`accounts:signInWithGameCenter`).
    public var gameCenter: GameCenterSettings?
    /// OAuth 2.0 providers that sign in only through the browser (`/__/auth/handler`), by provider id:
    /// `github.com`, `microsoft.com`, `yahoo.com`, `linkedin.com`.
    public var oauth: [String: OAuthSettings] = [:]
    /// Twitter (X): OAuth 1.0a, through the browser or with an access token and its secret.
    public var twitter: TwitterSettings?

    public init(
        allowDuplicateEmails: Bool = false, apple: AppleSettings? = nil, google: GoogleSettings? = nil,
        facebook: FacebookSettings? = nil, oidc: [String: OIDCSettings] = [:]
    ) {
        self.allowDuplicateEmails = allowDuplicateEmails
        self.apple = apple
        self.google = google
        self.facebook = facebook
        self.oidc = oidc
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case allowDuplicateEmails, apple, google, facebook, oidc, gameCenter, oauth, twitter
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        allowDuplicateEmails = try c.decode(.allowDuplicateEmails, default: false)
        apple = try c.decodeIfPresent(AppleSettings.self, forKey: .apple)
        google = try c.decodeIfPresent(GoogleSettings.self, forKey: .google)
        facebook = try c.decodeIfPresent(FacebookSettings.self, forKey: .facebook)
        oidc = try c.decode(.oidc, default: [:])
        gameCenter = try c.decodeIfPresent(GameCenterSettings.self, forKey: .gameCenter)
        oauth = try c.decode(.oauth, default: [:])
        twitter = try c.decodeIfPresent(TwitterSettings.self, forKey: .twitter)
        for name in oauth.keys where !OAuthSettings.providers.contains(name) {
            throw DecodingError.dataCorruptedError(
                forKey: .oauth, in: c,
                debugDescription: "OAuth providers are \(OAuthSettings.providers.joined(separator: ", ")), got \(name)")
        }
        for name in oidc.keys where !name.hasPrefix("oidc.") || name.count <= 5 {
            throw DecodingError.dataCorruptedError(
                forKey: .oidc, in: c, debugDescription: "OIDC provider ids look like oidc.<name>, got \(name)")
        }
    }
}

/// Game Center: the local player's identity-verification signature, checked with Apple's public key.
public struct GameCenterSettings: Sendable, Equatable, Codable {
    /// The games' bundle IDs; the signature covers one of them.
    public var bundleIds: [String]
    /// Where Apple's signing certificates may come from: `publicKeyUrl` must have the scheme, host and port of one
    /// of these and start with its path (Apple: https on static.gc.apple.com).
    public var publicKeyUrlPrefixes: [String] = ["https://static.gc.apple.com/"]
    /// How old a signature may be (its timestamp), in seconds.
    public var maxSignatureAgeSeconds: Int = 600
    /// PEM roots the certificate must chain to (its intermediates come from its Authority Information Access);
    /// nil: the root Apple's Game Center certificates are issued under (`GameCenterRoots`).
    public var trustedRootCertificates: [String]?

    public init(bundleIds: [String]) { self.bundleIds = bundleIds }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case bundleIds, publicKeyUrlPrefixes, maxSignatureAgeSeconds, trustedRootCertificates
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = GameCenterSettings(bundleIds: [])
        bundleIds = try c.decode([String].self, forKey: .bundleIds)
        publicKeyUrlPrefixes = try c.decode(.publicKeyUrlPrefixes, default: d.publicKeyUrlPrefixes)
        maxSignatureAgeSeconds = try c.decode(.maxSignatureAgeSeconds, default: d.maxSignatureAgeSeconds)
        trustedRootCertificates = try c.decodeIfPresent([String].self, forKey: .trustedRootCertificates)
    }
}

/// Sign in with Apple.
public struct AppleSettings: Sendable, Equatable, Codable {
    /// The `aud` values accepted: the app's bundle IDs (native sign-in) and Services IDs (web).
    public var clientIds: [String]
    public var keysUrl: String = "https://appleid.apple.com/auth/keys"
    /// Apple has used both spellings.
    public var issuers: [String] = ["https://appleid.apple.com", "https://account.apple.com"]
    /// For authorization-code exchange and token revocation: the team ID, the Sign in with Apple key's ID, and
    /// the key itself (the .p8 file's PEM text, or its path in `privateKeyFile`).
    public var teamId: String?
    public var keyId: String?
    public var privateKey: String?
    public var privateKeyFile: String?
    /// The client id codes were issued to (the bundle ID for native apps); the first of `clientIds` when unset.
    public var codeClientId: String?
    public var tokenUrl: String = "https://appleid.apple.com/auth/token"
    public var revokeUrl: String = "https://appleid.apple.com/auth/revoke"
    /// What an `account-delete` server-to-server notification does to the user: `disable` (default) or `delete`.
    public var onAccountDelete: AppleAccountDeletion = .disable

    public init(clientIds: [String]) { self.clientIds = clientIds }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientIds, keysUrl, issuers, teamId, keyId, privateKey, privateKeyFile, codeClientId, tokenUrl, revokeUrl,
            onAccountDelete
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = AppleSettings(clientIds: [])
        clientIds = try c.decode([String].self, forKey: .clientIds)
        keysUrl = try c.decode(.keysUrl, default: d.keysUrl)
        issuers = try c.decode(.issuers, default: d.issuers)
        teamId = try c.decodeIfPresent(String.self, forKey: .teamId)
        keyId = try c.decodeIfPresent(String.self, forKey: .keyId)
        privateKey = try c.decodeIfPresent(String.self, forKey: .privateKey)
        privateKeyFile = try c.decodeIfPresent(String.self, forKey: .privateKeyFile)
        codeClientId = try c.decodeIfPresent(String.self, forKey: .codeClientId)
        tokenUrl = try c.decode(.tokenUrl, default: d.tokenUrl)
        revokeUrl = try c.decode(.revokeUrl, default: d.revokeUrl)
        onAccountDelete = try c.decode(.onAccountDelete, default: d.onAccountDelete)
    }
}

public enum AppleAccountDeletion: String, Sendable, Equatable, Codable {
    case disable
    case delete
}

/// Google Sign-In ID tokens.
public struct GoogleSettings: Sendable, Equatable, Codable {
    /// The OAuth client ids (iOS, web, Android) tokens may be issued to.
    public var clientIds: [String]
    /// When set, only accounts of this Google Workspace domain (`hd` claim) may sign in.
    public var hostedDomain: String?
    public var keysUrl: String = "https://www.googleapis.com/oauth2/v3/certs"
    public var issuers: [String] = ["https://accounts.google.com", "accounts.google.com"]
    /// For sign-in with an access token only: Google's token check (its `aud` must be one of `clientIds`) and
    /// the profile.
    public var tokenInfoUrl: String = "https://oauth2.googleapis.com/tokeninfo"
    public var userInfoUrl: String = "https://openidconnect.googleapis.com/v1/userinfo"
    /// The web client's secret (the web client is the first of `clientIds`): set, Google signs in through the
    /// browser too (`signInWithPopup`/`Redirect`, the auth handler), with the code flow and PKCE.
    public var clientSecret: String?
    public var authorizationUrl: String = "https://accounts.google.com/o/oauth2/v2/auth"
    public var tokenUrl: String = "https://oauth2.googleapis.com/token"

    public init(clientIds: [String], hostedDomain: String? = nil) {
        self.clientIds = clientIds
        self.hostedDomain = hostedDomain
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientIds, hostedDomain, keysUrl, issuers, tokenInfoUrl, userInfoUrl, clientSecret, authorizationUrl,
            tokenUrl
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = GoogleSettings(clientIds: [])
        clientIds = try c.decode([String].self, forKey: .clientIds)
        hostedDomain = try c.decodeIfPresent(String.self, forKey: .hostedDomain)
        keysUrl = try c.decode(.keysUrl, default: d.keysUrl)
        issuers = try c.decode(.issuers, default: d.issuers)
        tokenInfoUrl = try c.decode(.tokenInfoUrl, default: d.tokenInfoUrl)
        userInfoUrl = try c.decode(.userInfoUrl, default: d.userInfoUrl)
        clientSecret = try c.decodeIfPresent(String.self, forKey: .clientSecret)
        authorizationUrl = try c.decode(.authorizationUrl, default: d.authorizationUrl)
        tokenUrl = try c.decode(.tokenUrl, default: d.tokenUrl)
    }
}

/// Facebook Login: classic access tokens (checked with the Graph API) and Limited Login OIDC tokens.
public struct FacebookSettings: Sendable, Equatable, Codable {
    public var appId: String
    /// Needed for classic access tokens: the app token for `debug_token` and `appsecret_proof` on `/me`.
    public var appSecret: String?
    public var graphUrl: String = "https://graph.facebook.com"
    /// Limited Login's JWKS and issuer.
    public var keysUrl: String = "https://limited.facebook.com/.well-known/oauth/openid/jwks/"
    public var issuers: [String] = ["https://www.facebook.com", "https://limited.facebook.com"]

    public init(appId: String, appSecret: String? = nil) {
        self.appId = appId
        self.appSecret = appSecret
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case appId, appSecret, graphUrl, keysUrl, issuers }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = FacebookSettings(appId: "")
        appId = try c.decode(String.self, forKey: .appId)
        appSecret = try c.decodeIfPresent(String.self, forKey: .appSecret)
        graphUrl = try c.decode(.graphUrl, default: d.graphUrl)
        keysUrl = try c.decode(.keysUrl, default: d.keysUrl)
        issuers = try c.decode(.issuers, default: d.issuers)
    }
}

/// A generic OpenID Connect provider, found through its discovery document.
public struct OIDCSettings: Sendable, Equatable, Codable {
    /// The exact `iss` of its tokens; discovery is at `<issuer>/.well-known/openid-configuration`.
    public var issuer: String
    public var clientIds: [String]
    /// Overrides the discovery document's `jwks_uri` (and skips discovery).
    public var keysUrl: String?
    /// The browser sign-in (authorization-code flow with PKCE, `oauthIdpConfigs`' `responseType.code`) needs the
    /// client secret; it uses the first of `clientIds`.
    public var clientSecret: String?
    /// Override the discovery document's `authorization_endpoint` and `token_endpoint`.
    public var authorizationUrl: String?
    public var tokenUrl: String?
    /// Scopes asked for besides `openid` (default `email profile`).
    public var scopes: [String] = ["email", "profile"]

    public init(issuer: String, clientIds: [String], keysUrl: String? = nil, clientSecret: String? = nil) {
        self.issuer = issuer
        self.clientIds = clientIds
        self.keysUrl = keysUrl
        self.clientSecret = clientSecret
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer, clientIds, keysUrl, clientSecret, authorizationUrl, tokenUrl, scopes
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try c.decode(String.self, forKey: .issuer)
        clientIds = try c.decode([String].self, forKey: .clientIds)
        keysUrl = try c.decodeIfPresent(String.self, forKey: .keysUrl)
        clientSecret = try c.decodeIfPresent(String.self, forKey: .clientSecret)
        authorizationUrl = try c.decodeIfPresent(String.self, forKey: .authorizationUrl)
        tokenUrl = try c.decodeIfPresent(String.self, forKey: .tokenUrl)
        scopes = try c.decode(.scopes, default: ["email", "profile"])
    }
}

/// An OAuth 2.0 provider without ID tokens, signed in through the browser: the authorization-code flow with PKCE,
/// then the provider's user-info endpoint with the access token. Every URL defaults to the provider's real one.
public struct OAuthSettings: Sendable, Equatable, Codable {
    public static let providers = ProviderID.oauth

    public var clientId: String
    public var clientSecret: String
    public var authorizationUrl: String?
    public var tokenUrl: String?
    public var userInfoUrl: String?
    /// GitHub only: the list of the user's addresses, read when the profile shows none (`/user/emails`).
    public var emailsUrl: String?
    /// Scopes asked for when the app names none; the provider's usual ones by default.
    public var scopes: [String]?

    public init(clientId: String, clientSecret: String) {
        self.clientId = clientId
        self.clientSecret = clientSecret
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case clientId, clientSecret, authorizationUrl, tokenUrl, userInfoUrl, emailsUrl, scopes
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientId = try c.decode(String.self, forKey: .clientId)
        clientSecret = try c.decode(String.self, forKey: .clientSecret)
        authorizationUrl = try c.decodeIfPresent(String.self, forKey: .authorizationUrl)
        tokenUrl = try c.decodeIfPresent(String.self, forKey: .tokenUrl)
        userInfoUrl = try c.decodeIfPresent(String.self, forKey: .userInfoUrl)
        emailsUrl = try c.decodeIfPresent(String.self, forKey: .emailsUrl)
        scopes = try c.decodeIfPresent([String].self, forKey: .scopes)
    }
}

/// Twitter (X) with OAuth 1.0a: the app's API key and secret (consumer key and secret) sign every request.
public struct TwitterSettings: Sendable, Equatable, Codable {
    public var consumerKey: String
    public var consumerSecret: String
    public var requestTokenUrl: String = "https://api.twitter.com/oauth/request_token"
    public var authorizeUrl: String = "https://api.twitter.com/oauth/authorize"
    public var accessTokenUrl: String = "https://api.twitter.com/oauth/access_token"
    /// Read with `include_email=true` (the app must be allowed to ask for e-mail addresses).
    public var verifyCredentialsUrl: String = "https://api.twitter.com/1.1/account/verify_credentials.json"

    public init(consumerKey: String, consumerSecret: String) {
        self.consumerKey = consumerKey
        self.consumerSecret = consumerSecret
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case consumerKey, consumerSecret, requestTokenUrl, authorizeUrl, accessTokenUrl, verifyCredentialsUrl
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TwitterSettings(consumerKey: "", consumerSecret: "")
        consumerKey = try c.decode(String.self, forKey: .consumerKey)
        consumerSecret = try c.decode(String.self, forKey: .consumerSecret)
        requestTokenUrl = try c.decode(.requestTokenUrl, default: d.requestTokenUrl)
        authorizeUrl = try c.decode(.authorizeUrl, default: d.authorizeUrl)
        accessTokenUrl = try c.decode(.accessTokenUrl, default: d.accessTokenUrl)
        verifyCredentialsUrl = try c.decode(.verifyCredentialsUrl, default: d.verifyCredentialsUrl)
    }
}
