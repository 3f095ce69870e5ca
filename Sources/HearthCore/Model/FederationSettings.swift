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
        case allowDuplicateEmails, apple, google, facebook, oidc, gameCenter
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
    /// Where Apple's signing certificates may come from (`publicKeyUrl` must start with one of these).
    public var publicKeyUrlPrefixes: [String] = ["https://static.gc.apple.com/"]
    /// How old a signature may be (its timestamp), in seconds.
    public var maxSignatureAgeSeconds: Int = 600

    public init(bundleIds: [String]) { self.bundleIds = bundleIds }

    enum CodingKeys: String, CodingKey, CaseIterable { case bundleIds, publicKeyUrlPrefixes, maxSignatureAgeSeconds }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = GameCenterSettings(bundleIds: [])
        bundleIds = try c.decode([String].self, forKey: .bundleIds)
        publicKeyUrlPrefixes = try c.decode(.publicKeyUrlPrefixes, default: d.publicKeyUrlPrefixes)
        maxSignatureAgeSeconds = try c.decode(.maxSignatureAgeSeconds, default: d.maxSignatureAgeSeconds)
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

    public init(clientIds: [String], hostedDomain: String? = nil) {
        self.clientIds = clientIds
        self.hostedDomain = hostedDomain
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case clientIds, hostedDomain, keysUrl, issuers }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = GoogleSettings(clientIds: [])
        clientIds = try c.decode([String].self, forKey: .clientIds)
        hostedDomain = try c.decodeIfPresent(String.self, forKey: .hostedDomain)
        keysUrl = try c.decode(.keysUrl, default: d.keysUrl)
        issuers = try c.decode(.issuers, default: d.issuers)
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

    public init(issuer: String, clientIds: [String], keysUrl: String? = nil) {
        self.issuer = issuer
        self.clientIds = clientIds
        self.keysUrl = keysUrl
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case issuer, clientIds, keysUrl }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try c.decode(String.self, forKey: .issuer)
        clientIds = try c.decode([String].self, forKey: .clientIds)
        keysUrl = try c.decodeIfPresent(String.self, forKey: .keysUrl)
    }
}
