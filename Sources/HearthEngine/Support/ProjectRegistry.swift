import HearthCore

/// The projects this server serves and which API key belongs to which.
public struct ProjectRegistry: Sendable {
    public let defaultProjectID: String
    private let projects: [String: ProjectConfig]
    private let keyToProject: [String: String]

    public init(defaultProjectID: String, projects: [ProjectConfig]) {
        var map: [String: ProjectConfig] = [:]
        for p in projects { map[p.projectID] = p }
        if map[defaultProjectID] == nil { map[defaultProjectID] = ProjectConfig(projectID: defaultProjectID) }
        self.defaultProjectID = defaultProjectID
        self.projects = map
        var keys: [String: String] = [:]
        for p in map.values { for k in p.apiKeys { keys[k] = p.projectID } }
        keyToProject = keys
    }

    public var all: [ProjectConfig] { projects.values.sorted { $0.projectID < $1.projectID } }

    public func config(_ projectID: String) -> ProjectConfig? { projects[projectID] }

    /// The project a client request belongs to, from its API key (and the project in its path, if any).
    ///
    /// A key configured for a project selects that project. A project with no keys configured accepts
    /// any key, as the Firebase emulator does. A missing key is MISSING_API_KEY... unless the path names
    /// a project that has no keys (emulator parity).
    public func resolve(apiKey: String?, pathProject: String?) throws(AuthError) -> ProjectConfig {
        if let pathProject {
            guard let project = projects[pathProject] else {
                throw AuthError(.invalidProjectID, "Project ID does not match: \(pathProject)")
            }
            if project.apiKeys.isEmpty { return project }
            guard let apiKey, !apiKey.isEmpty else { throw AuthError.missingAPIKey }
            guard project.apiKeys.contains(apiKey) else { throw AuthError.invalidAPIKey }
            return project
        }
        guard let apiKey, !apiKey.isEmpty else { throw AuthError.missingAPIKey }
        if let id = keyToProject[apiKey], let project = projects[id] { return project }
        let fallback = projects[defaultProjectID]!
        if fallback.apiKeys.isEmpty { return fallback }
        throw AuthError.invalidAPIKey
    }

    /// True when some project still accepts any API key (worth a warning in the log).
    public var acceptsAnyAPIKey: Bool { projects.values.contains { $0.apiKeys.isEmpty } }
}
