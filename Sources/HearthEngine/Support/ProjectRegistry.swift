import HearthCore
import HearthStore
import Synchronization

/// The projects this server serves, which API key belongs to which, and the settings changed at run time
/// (through `/v2/projects/{p}/config` or the emulator's config route) laid over the config file's.
public final class ProjectRegistry: Sendable {
    public let defaultProjectID: String
    /// Emulator mode: any project id is served, with default settings, as the Firebase Auth Emulator does.
    public let servesAnyProject: Bool
    private let fileConfigs: [String: ProjectConfig]
    private let state: Mutex<State>

    struct State {
        var projects: [String: ProjectConfig]
        var settings: [String: [String: JSONValue]] = [:]
        var keyToProject: [String: String] = [:]

        mutating func index() {
            keyToProject = [:]
            for p in projects.values where p.tenant == nil { for k in p.apiKeys { keyToProject[k] = p.projectID } }
        }
    }

    public init(defaultProjectID: String, projects: [ProjectConfig], servesAnyProject: Bool = false) {
        var map: [String: ProjectConfig] = [:]
        for p in projects { map[p.projectID] = p }
        if map[defaultProjectID] == nil {
            map[defaultProjectID] =
                servesAnyProject ? Self.emulatorDefault(defaultProjectID) : ProjectConfig(projectID: defaultProjectID)
        }
        self.defaultProjectID = defaultProjectID
        self.servesAnyProject = servesAnyProject
        fileConfigs = map
        var state = State(projects: map)
        state.index()
        self.state = Mutex(state)
    }

    /// The projects, without their tenants.
    public var all: [ProjectConfig] {
        state.withLock { $0.projects.values.filter { $0.tenant == nil }.sorted { $0.projectID < $1.projectID } }
    }

    public func config(_ projectID: String) -> ProjectConfig? {
        if let config = state.withLock({ $0.projects[projectID] }) { return config }
        if TenantScope.split(projectID).tenant != nil { return nil }
        return servesAnyProject && !projectID.isEmpty ? Self.emulatorDefault(projectID) : nil
    }

    /// A project the emulator serves without configuration has the Firebase Auth Emulator's defaults: e-mail
    /// enumeration protection off (tests expect EMAIL_NOT_FOUND and friends), SMS second factors allowed (the
    /// emulator's project always has them on); it has no rate limits either.
    static func emulatorDefault(_ projectID: String) -> ProjectConfig {
        var config = ProjectConfig(projectID: projectID)
        config.emailEnumerationProtection = false
        config.rateLimits = .unlimited
        config.mfa = MFASettings(state: .enabled, phoneEnabled: true)
        // The emulator's one, obviously fake, project number.
        config.projectNumber = "12345"
        return config
    }

    // MARK: Tenants

    /// The configuration of `project`'s tenant `tenantID`. Unknown tenants are TENANT_NOT_FOUND, except in emulator
    /// mode, where (as in the Firebase Auth Emulator) naming a tenant brings it into being with every sign-in
    /// method enabled.
    public func tenant(_ tenantID: String, of project: ProjectConfig) throws(AuthError) -> ProjectConfig {
        let key = TenantScope.key(project: project.firebaseProjectID, tenant: tenantID)
        if let config = state.withLock({ $0.projects[key] }) { return config }
        guard servesAnyProject, Tenant.isValidID(tenantID) else {
            throw AuthError(.tenantNotFound, "There is no tenant \(tenantID) in this project.")
        }
        let tenant = Tenant(
            tenantID: tenantID, allowPasswordSignup: true, enableEmailLinkSignin: true, enableAnonymousUser: true,
            mfaConfig: ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]])
        let settings: [String: JSONValue] = ["tenant": tenant.json(project: project.firebaseProjectID)]
        try apply(settings: settings, to: key)
        return state.withLock { $0.projects[key]! }
    }

    /// The tenants of a project, by tenant id.
    public func tenants(of projectID: String) -> [ProjectConfig] {
        let prefix = TenantScope.tenantPrefix(of: projectID)
        return state.withLock { state in
            state.projects.filter { $0.key.hasPrefix(prefix) }.map(\.value)
        }.sorted { $0.projectID < $1.projectID }
    }

    /// Forgets a deleted tenant here; other processes forget it at their next reload.
    public func removeTenant(_ scopeKey: String) {
        state.withLock { state in
            state.projects[scopeKey] = nil
            state.settings[scopeKey] = nil
        }
    }

    /// The project a client request belongs to, from its API key (and the project in its path, if any).
    ///
    /// A key configured for a project selects that project. A project with no keys configured accepts
    /// any key, as the Firebase emulator does. A missing key is MISSING_API_KEY... unless the path names
    /// a project that has no keys (emulator parity).
    public func resolve(apiKey: String?, pathProject: String?) throws(AuthError) -> ProjectConfig {
        if let pathProject {
            guard let project = config(pathProject) else {
                throw AuthError(.invalidProjectID, "Project ID does not match: \(pathProject)")
            }
            if project.apiKeys.isEmpty { return project }
            guard let apiKey, !apiKey.isEmpty else { throw AuthError.missingAPIKey }
            guard project.apiKeys.contains(apiKey) else { throw AuthError.invalidAPIKey }
            return project
        }
        guard let apiKey, !apiKey.isEmpty else { throw AuthError.missingAPIKey }
        return try state.withLock { state throws(AuthError) in
            if let id = state.keyToProject[apiKey], let project = state.projects[id] { return project }
            let fallback = state.projects[defaultProjectID]!
            if fallback.apiKeys.isEmpty { return fallback }
            throw AuthError.invalidAPIKey
        }
    }

    /// True when some project still accepts any API key (worth a warning in the log).
    public var acceptsAnyAPIKey: Bool { all.contains { $0.apiKeys.isEmpty } }

    /// The run-time settings of a project (empty when none were changed).
    public func settings(_ projectID: String) -> [String: JSONValue] {
        state.withLock { $0.settings[projectID] ?? [:] }
    }

    /// Lays `settings` over the project's file configuration from now on.
    public func apply(settings: [String: JSONValue], to projectID: String) throws(AuthError) {
        guard let base = baseConfig(projectID, settings: settings) else {
            throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
        }
        let effective = try base.applying(settings: settings)
        state.withLock { state in
            state.projects[projectID] = effective
            state.settings[projectID] = settings
            state.index()
        }
    }

    /// Reads every known project's run-time settings from the store: at start, and periodically so that
    /// a change made through another server process arrives here too. Settings that no longer apply are logged
    /// by the caller and skipped.
    public func load(from store: AuthStore) async throws -> [(projectID: String, error: AuthError)] {
        var problems: [(String, AuthError)] = []
        for projectID in all.map(\.projectID) where TenantScope.split(projectID).tenant == nil {
            var documents: [(projectID: String, settings: String)] = []
            if let text = try await store.projectSettings(projectID: projectID) { documents.append((projectID, text)) }
            let tenants = try await store.projectSettings(prefix: TenantScope.tenantPrefix(of: projectID))
            documents += tenants
            // Tenants deleted through another process.
            let stored = Set(tenants.map(\.projectID))
            for gone in self.tenants(of: projectID).map(\.projectID) where !stored.contains(gone) { removeTenant(gone) }
            for (id, text) in documents {
                guard case .object(let settings)? = try? JSONValue(parsing: text) else { continue }
                do { try apply(settings: settings, to: id) } catch { problems.append((id, error)) }
            }
        }
        return problems
    }

    /// The file configuration of a project, before run-time settings. For a tenant's scope key: the project's,
    /// under the tenant's key, with the tenant's own rules.
    func fileConfig(_ projectID: String) -> ProjectConfig? {
        baseConfig(projectID, settings: settings(projectID))
    }

    /// What run-time `settings` are laid over: a project's file configuration, or for a tenant its project's
    /// with the tenant (stored under `tenant` in its settings) attached.
    func baseConfig(_ projectID: String, settings: [String: JSONValue]) -> ProjectConfig? {
        let (project, tenantID) = TenantScope.split(projectID)
        guard let base = fileConfigs[project] ?? (servesAnyProject ? Self.emulatorDefault(project) : nil) else {
            return nil
        }
        guard let tenantID else { return base }
        guard let stored = settings["tenant"], let tenant = Tenant(stored: stored), tenant.tenantID == tenantID else {
            return nil
        }
        var config = base
        config.projectID = projectID
        config.tenant = tenant
        let parent = state.withLock { $0.projects[project] } ?? base
        // A tenant's events go to its project's blocking functions, and one account per e-mail is the project's
        // rule, as with Identity Platform.
        config.blockingFunctions = parent.blockingFunctions
        // Its identity providers are its own: only those configured under /tenants/{t} (its `idpConfigs`, laid over
        // this by `applying(settings:)`), none of the project's, so a new tenant accepts no provider until told.
        config.federation = FederationSettings(allowDuplicateEmails: parent.federation.allowDuplicateEmails)
        config.phone.testPhoneNumbers = tenant.testPhoneNumbers
        // The tenant's own second-factor rules (checked when the tenant was written).
        config.mfa = tenant.mfaConfig.flatMap { try? MFASettings(json: $0) } ?? MFASettings()
        return config
    }
}
