import Crypto
import Foundation

/// Everything that can differ between the projects one Hearth server serves: the members of `Fields`, read and
/// written as members of the configuration itself (`config.apiKeys`).
///
/// Decodes from the `projects` entries of the config file; every field is optional there
/// and defaults to what a new Firebase project does.
///
/// A value type whose fields live behind one reference, copied on write: a request's project is copied into each
/// layer it passes (its origin, the engine's calls, the answer's encoding), and copying some thirty strings, arrays
/// and dictionaries field by field cost about 150 reference-count operations per request; the box costs two.
@dynamicMemberLookup
public struct ProjectConfig: Sendable, Equatable, Codable {
    public struct Fields: Sendable, Equatable, Codable {
        public var projectID: String
        /// Google's numeric project id, which some responses carry; derived from the id unless configured.
        public var projectNumber: String
        /// Web API keys clients must present. Empty: any key is accepted (as the emulator does).
        public var apiKeys: [String]
        public var passwordPolicy: PasswordPolicy
        /// E-mail enumeration protection (Firebase's "improved e-mail privacy"), on for new projects.
        public var emailEnumerationProtection: Bool
        public var rateLimits: RateLimits
        public var tokens: TokenSettings
        public var phone: PhoneSettings
        public var authorizedDomains: [String]
        /// The page e-mail action links open (reset password, verify e-mail), with `mode`, `oobCode`, `apiKey`
        /// and `lang` appended; Firebase's default is the project's hosted handler.
        public var emailActionURL: String
        /// Sign-in with Apple, Google, Facebook and OIDC providers (config key `federation`).
        public var federation: FederationSettings = .init()
        /// Second factors (config key `mfa`, Identity Platform's shape).
        public var mfa: MFASettings = .init()
        /// Set when this configuration is one of the project's tenants; `projectID` is then the tenant's scope key
        /// (`TenantScope`), which is how the store keeps the tenant's users apart.
        public var tenant: Tenant?
        /// Functions called before an account is created or a sign-in completes (set through the v2 config).
        public var blockingFunctions: BlockingFunctionSettings = .init()
        /// E-mail templates, app name and sending limits (config key `email`).
        public var email: EmailSettings = .init()
        /// The WebAuthn relying party of passkeys (config key `passkeyConfig`); passkeys are off until it is set.
        public var passkeys: PasskeySettings = .init()
    }

    /// Mutated only while uniquely referenced, so no other thread can see a change: hence Sendable.
    @usableFromInline final class Storage: @unchecked Sendable {
        @usableFromInline var fields: Fields

        @usableFromInline init(_ fields: Fields) {
            self.fields = fields
        }
    }

    @usableFromInline var storage: Storage

    /// Inlinable so that each use of a member is a direct load, the key path folded away.
    @inlinable public subscript<Value>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { storage.fields[keyPath: field] }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            storage.fields[keyPath: field] = newValue
        }
    }

    /// The Firebase project: what tokens name as audience and issuer, and admin paths as `{project}`.
    public var firebaseProjectID: String { TenantScope.split(self.projectID).project }
    public var tenantID: String? { self.tenant?.tenantID }

    public init(
        projectID: String, apiKeys: [String] = [], passwordPolicy: PasswordPolicy = .init(),
        emailEnumerationProtection: Bool = true, rateLimits: RateLimits = .init(), tokens: TokenSettings = .init(),
        phone: PhoneSettings = .init(), authorizedDomains: [String] = ["localhost"]
    ) {
        storage = Storage(
            Fields(
                projectID: projectID, projectNumber: ProjectConfig.derivedNumber(projectID), apiKeys: apiKeys,
                passwordPolicy: passwordPolicy, emailEnumerationProtection: emailEnumerationProtection,
                rateLimits: rateLimits, tokens: tokens, phone: phone, authorizedDomains: authorizedDomains,
                emailActionURL: "https://\(projectID).firebaseapp.com/__/auth/action"))
    }

    public static func == (a: ProjectConfig, b: ProjectConfig) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    public init(from decoder: Decoder) throws {
        storage = Storage(try Fields(from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        try storage.fields.encode(to: encoder)
    }
}

extension ProjectConfig.Fields {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case projectID = "projectId", projectNumber, apiKeys, passwordPolicy, emailEnumerationProtection, rateLimits,
            tokens, phone, authorizedDomains, emailActionURL, federation, mfa, email, passkeys = "passkeyConfig"
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = ProjectConfig(projectID: try c.decode(String.self, forKey: .projectID))
        projectID = d.projectID
        projectNumber = try c.decode(.projectNumber, default: d.projectNumber)
        apiKeys = try c.decode(.apiKeys, default: d.apiKeys)
        passwordPolicy = try c.decode(.passwordPolicy, default: d.passwordPolicy)
        emailEnumerationProtection = try c.decode(.emailEnumerationProtection, default: d.emailEnumerationProtection)
        rateLimits = try c.decode(.rateLimits, default: d.rateLimits)
        tokens = try c.decode(.tokens, default: d.tokens)
        phone = try c.decode(.phone, default: d.phone)
        authorizedDomains = try c.decode(.authorizedDomains, default: d.authorizedDomains)
        emailActionURL = try c.decode(.emailActionURL, default: d.emailActionURL)
        federation = try c.decode(.federation, default: d.federation)
        mfa = try c.decode(.mfa, default: d.mfa)
        tenant = nil
        blockingFunctions = .init()
        email = try c.decode(.email, default: d.email)
        passkeys = try c.decode(.passkeys, default: d.passkeys)
    }
}

extension ProjectConfig {
    /// A stable 12-digit number for a project id, so every server answers the same one.
    static func derivedNumber(_ projectID: String) -> String {
        let digest = SHA256.hash(data: Data(projectID.utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(100_000_000_000 + value % 900_000_000_000)
    }
}

/// Limits on abuse, kept as counters in the store so they hold across server processes.
public struct RateLimits: Sendable, Equatable, Codable {
    /// Failed password sign-ins allowed per e-mail address in `failedPasswordWindowSeconds`.
    public var failedPasswordsPerAccount: Int = 10
    /// Failed password sign-ins allowed per client IP in `failedPasswordWindowSeconds`.
    public var failedPasswordsPerIP: Int = 100
    public var failedPasswordWindowSeconds: Int = 900
    /// New accounts allowed per client IP per hour (Firebase: 100).
    public var signUpsPerIPPerHour: Int = 100
    /// Browser sign-ins (`/__/auth/handler`, `createAuthUri` with a provider) started per client IP per hour: each
    /// stores a pending sign-in and may call the provider (Twitter's request token), so anonymous floods are bounded.
    public var browserSignInsPerIPPerHour: Int = 300

    public init() {}

    /// No limits; for benchmarks and load tests.
    public static var unlimited: RateLimits {
        var r = RateLimits()
        r.failedPasswordsPerAccount = 0
        r.failedPasswordsPerIP = 0
        r.signUpsPerIPPerHour = 0
        r.browserSignInsPerIPPerHour = 0
        return r
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case failedPasswordsPerAccount, failedPasswordsPerIP, failedPasswordWindowSeconds, signUpsPerIPPerHour,
            browserSignInsPerIPPerHour
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = RateLimits()
        failedPasswordsPerAccount = try c.decode(.failedPasswordsPerAccount, default: d.failedPasswordsPerAccount)
        failedPasswordsPerIP = try c.decode(.failedPasswordsPerIP, default: d.failedPasswordsPerIP)
        failedPasswordWindowSeconds = try c.decode(.failedPasswordWindowSeconds, default: d.failedPasswordWindowSeconds)
        signUpsPerIPPerHour = try c.decode(.signUpsPerIPPerHour, default: d.signUpsPerIPPerHour)
        browserSignInsPerIPPerHour = try c.decode(.browserSignInsPerIPPerHour, default: d.browserSignInsPerIPPerHour)
    }
}

/// Lifetimes and rotation rules for the tokens a project issues.
public struct TokenSettings: Sendable, Equatable, Codable {
    /// ID token lifetime; Firebase's is one hour.
    public var idTokenLifetimeSeconds: Int = 3600
    /// Issue a new refresh token on every use (off only for clients that cannot store one).
    public var rotateRefreshTokens: Bool = true
    /// How long a rotated refresh token still answers with its successor, for racing tabs and retries.
    public var refreshReuseGraceSeconds: Int = 30
    /// How recent a sign-in must be for deleting the account or changing e-mail or password.
    public var recentSignInSeconds: Int = 300

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case idTokenLifetimeSeconds, rotateRefreshTokens, refreshReuseGraceSeconds, recentSignInSeconds
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = TokenSettings()
        idTokenLifetimeSeconds = try c.decode(.idTokenLifetimeSeconds, default: d.idTokenLifetimeSeconds)
        rotateRefreshTokens = try c.decode(.rotateRefreshTokens, default: d.rotateRefreshTokens)
        refreshReuseGraceSeconds = try c.decode(.refreshReuseGraceSeconds, default: d.refreshReuseGraceSeconds)
        recentSignInSeconds = try c.decode(.recentSignInSeconds, default: d.recentSignInSeconds)
    }
}
