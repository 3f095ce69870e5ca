import Foundation
import HearthCore
import HearthMessaging
import HearthProviders

/// Everything `hearth serve` can be told, from the config file, the environment and flags
/// (flags win over the environment, the environment over the file, the file over defaults).
public struct ServerConfiguration: Sendable, Equatable, Codable {
    public var host: String = "127.0.0.1"
    public var port: Int = 9099
    /// Where the SQLite database lives when no database URL is given.
    public var dataDir: String = ".hearth"
    /// `postgres://user:pass@host:port/db`, or nil for the embedded SQLite file.
    public var databaseURL: String?
    /// Base64 of 32 bytes; when set, signing keys are encrypted at rest with it.
    public var keyEncryptionKey: String?
    /// The project requests without a configured API key belong to.
    public var defaultProject: String = "demo-hearth"
    /// How long verifiers may cache the public keys (Cache-Control max-age); a rotated key
    /// is published this long before it signs.
    public var publicKeyCacheSeconds: Int = 3600
    public var passwordHashing: PasswordHashingSettings = .init()
    /// `normal` survives a crash of the process; `full` also a power cut, at an fsync per commit.
    public var sqliteDurability: String = "normal"
    public var logLevel: String = "info"
    /// `text` (a line per event) or `json` (an object per line, for log shippers); both on standard error and
    /// with the request id on every line a request causes.
    public var logFormat: String = "text"
    /// SMS provider for phone sign-in codes; the development outbox unless configured.
    public var sms: SMSConfiguration = .init()
    /// E-mail sender for action links (SMTP or a webhook); without one a production server sends no mail.
    public var email: EmailConfiguration = .init()
    /// The base URL users reach this server at (`https://auth.example.com`): e-mail links open its action pages
    /// (`<publicURL>/__/auth/action`) unless a project sets its own `emailActionURL`.
    public var publicURL: String?
    /// reCAPTCHA for projects with `phone.appVerification: "recaptcha"`.
    public var recaptcha: RecaptchaVerifier.Configuration = .init()
    /// APNs provider key for projects with `phone.appVerification: "apns"` (the silent push of `verifyClient`).
    public var apns: APNsSender.Configuration = .init()
    /// Connection limits and timeouts, and the reverse proxies trusted to name the client.
    public var http: HTTPSettings = .init()
    public var projects: [ProjectConfig] = []
    /// How long the audit log keeps an event (admin changes, sign-in activity); older ones are purged hourly.
    public var auditRetentionDays: Int = 400
    /// How long an identity provider (discovery, token, user-info and key endpoints) may take to answer before the
    /// sign-in fails with INVALID_IDP_RESPONSE.
    public var identityProviderTimeoutSeconds: Int = 10

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, dataDir, databaseURL, keyEncryptionKey, defaultProject, publicKeyCacheSeconds, passwordHashing,
            sqliteDurability, logLevel, logFormat, sms, email, publicURL, recaptcha, apns, http, projects,
            auditRetentionDays, identityProviderTimeoutSeconds
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = ServerConfiguration()
        host = try c.decode(.host, default: d.host)
        port = try c.decode(.port, default: d.port)
        dataDir = try c.decode(.dataDir, default: d.dataDir)
        databaseURL = try c.decodeIfPresent(String.self, forKey: .databaseURL)
        keyEncryptionKey = try c.decodeIfPresent(String.self, forKey: .keyEncryptionKey)
        defaultProject = try c.decode(.defaultProject, default: d.defaultProject)
        publicKeyCacheSeconds = try c.decode(.publicKeyCacheSeconds, default: d.publicKeyCacheSeconds)
        passwordHashing = try c.decode(.passwordHashing, default: d.passwordHashing)
        sqliteDurability = try c.decode(.sqliteDurability, default: d.sqliteDurability)
        logLevel = try c.decode(.logLevel, default: d.logLevel)
        logFormat = try c.decode(.logFormat, default: d.logFormat)
        sms = try c.decode(.sms, default: d.sms)
        email = try c.decode(.email, default: d.email)
        publicURL = try c.decodeIfPresent(String.self, forKey: .publicURL)
        recaptcha = try c.decode(.recaptcha, default: d.recaptcha)
        apns = try c.decode(.apns, default: d.apns)
        http = try c.decode(.http, default: d.http)
        projects = try c.decode(.projects, default: d.projects)
        auditRetentionDays = try c.decode(.auditRetentionDays, default: d.auditRetentionDays)
        guard auditRetentionDays >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .auditRetentionDays, in: c, debugDescription: "auditRetentionDays must be at least 1")
        }
        identityProviderTimeoutSeconds = try c.decode(
            .identityProviderTimeoutSeconds, default: d.identityProviderTimeoutSeconds)
        guard (1...300).contains(identityProviderTimeoutSeconds) else {
            throw DecodingError.dataCorruptedError(
                forKey: .identityProviderTimeoutSeconds, in: c,
                debugDescription: "identityProviderTimeoutSeconds must be between 1 and 300")
        }
    }

    /// The configured projects, with links pointing at `publicURL`'s action pages where a project keeps
    /// Firebase's default handler.
    public var resolvedProjects: [ProjectConfig] {
        guard let publicURL else { return projects }
        let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        return projects.map { project in
            var project = project
            if project.emailActionURL == ProjectConfig(projectID: project.projectID).emailActionURL {
                project.emailActionURL = base + "/__/auth/action"
            }
            if let host = URL(string: base)?.host, !project.authorizedDomains.contains(host) {
                project.authorizedDomains.append(host)
            }
            return project
        }
    }

    /// Reads a JSON config file.
    public static func load(file path: String) throws -> ServerConfiguration {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(ServerConfiguration.self, from: data)
    }

    /// Applies `HEARTH_*` environment variables.
    public mutating func applyEnvironment(_ env: [String: String]) throws {
        if let v = env["HEARTH_HOST"] { host = v }
        if let v = env["HEARTH_PORT"] {
            guard let p = Int(v) else { throw ConfigurationError("HEARTH_PORT must be a number, got \(v)") }
            port = p
        }
        if let v = env["HEARTH_DATA_DIR"] { dataDir = v }
        if let v = env["HEARTH_DATABASE_URL"], !v.isEmpty { databaseURL = v }
        if let v = env["HEARTH_KEY_ENCRYPTION_KEY"], !v.isEmpty { keyEncryptionKey = v }
        if let v = env["HEARTH_PROJECT"] { defaultProject = v }
        if let v = env["HEARTH_LOG_LEVEL"] { logLevel = v }
        if let v = env["HEARTH_LOG_FORMAT"] { logFormat = v }
        sms.applyEnvironment(env)
        if let v = env["HEARTH_TRUSTED_PROXIES"] {
            http.trustedProxies = v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        email.applyEnvironment(env)
        if let v = env["HEARTH_PUBLIC_URL"], !v.isEmpty { publicURL = v }
        if let v = env["HEARTH_RECAPTCHA_SECRET"], !v.isEmpty { recaptcha.secret = v }
        if let v = env["HEARTH_PASSWORD_HASH_THREADS"] {
            guard let n = Int(v) else { throw ConfigurationError("HEARTH_PASSWORD_HASH_THREADS must be a number") }
            passwordHashing.threads = n
        }
    }

    /// The URLs of senders and verifiers the server calls (providers' are in `FederationSettings.problems`).
    var calledURLs: [(String, String)] {
        var urls = [("recaptcha.siteverifyUrl", recaptcha.siteverifyURL)]
        if apns.isConfigured { urls += [("apns.baseUrl", apns.baseURL), ("apns.sandboxBaseUrl", apns.sandboxBaseURL)] }
        if sms.provider == .webhook, let webhook = sms.webhook { urls.append(("sms.webhook.url", webhook.url)) }
        if sms.provider == .twilio, let twilio = sms.twilio { urls.append(("sms.twilio.baseUrl", twilio.baseURL)) }
        if email.provider == .webhook, let webhook = email.webhook { urls.append(("email.webhook.url", webhook.url)) }
        return urls
    }

    /// Problems an operator must fix before the server can start.
    public func validate() throws {
        guard (1...65535).contains(port) || port == 0 else { throw ConfigurationError("port must be 1–65535") }
        guard passwordHashing.scrypt.isSane else {
            throw ConfigurationError("passwordHashing.scrypt: logN must be 10–20, r 1–16, p 1–16")
        }
        guard ["normal", "full"].contains(sqliteDurability) else {
            throw ConfigurationError("sqliteDurability must be \"normal\" or \"full\"")
        }
        guard LogFormat(rawValue: logFormat) != nil else {
            throw ConfigurationError("logFormat must be \"text\" or \"json\", got \(logFormat)")
        }
        if let problem = sms.problem { throw ConfigurationError(problem) }
        if let problem = http.problem { throw ConfigurationError(problem) }
        if let problem = email.problem { throw ConfigurationError(problem) }
        for (setting, url) in calledURLs {
            if let reason = OutboundURLPolicy.refusal(url) { throw ConfigurationError("\(setting) \(reason)") }
        }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ConfigurationError("publicURL must be an absolute http(s) URL, got \(publicURL)")
            }
        }
        for p in projects {
            if p.phone.appVerification == .recaptcha, recaptcha.secret?.isEmpty ?? true {
                throw ConfigurationError(
                    "project \(p.projectID) verifies apps with reCAPTCHA: set recaptcha.secret or HEARTH_RECAPTCHA_SECRET"
                )
            }
            if p.phone.appVerification == .apns, !apns.isConfigured {
                throw ConfigurationError(
                    "project \(p.projectID) verifies apps by APNs push: set apns.topic, teamId, keyId and key or keyFile"
                )
            }
            do { try PhoneSettings.validate(testPhoneNumbers: p.phone.testPhoneNumbers) } catch {
                throw ConfigurationError("project \(p.projectID): \(error.detail ?? error.message)")
            }
            guard p.passwordPolicy.minLength >= 1, p.passwordPolicy.maxLength >= p.passwordPolicy.minLength else {
                throw ConfigurationError("project \(p.projectID): passwordPolicy needs 1 <= minLength <= maxLength")
            }
            if let problem = p.federation.problems.first {
                throw ConfigurationError("project \(p.projectID): federation.\(problem)")
            }
            guard p.tokens.idTokenLifetimeSeconds >= 60, p.tokens.idTokenLifetimeSeconds <= 86400 else {
                throw ConfigurationError("project \(p.projectID): tokens.idTokenLifetimeSeconds must be 60–86400")
            }
        }
    }
}

public struct PasswordHashingSettings: Sendable, Equatable, Codable {
    /// Threads that hash passwords (default: one per core).
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Their scheduling niceness: higher lets token work preempt hashing.
    public var niceness: Int = 5
    public var scrypt: ScryptParameters = .default

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable { case threads, niceness, scrypt }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PasswordHashingSettings()
        threads = try c.decode(.threads, default: d.threads)
        niceness = try c.decode(.niceness, default: d.niceness)
        scrypt = try c.decode(.scrypt, default: d.scrypt)
    }
}

public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
