import HearthCore
import HearthProviders

extension AuthEngine {
    /// The stored run-time configs of a project's identity providers, by provider id.
    func storedIdPConfigs(_ projectID: String) -> [String: JSONValue] {
        projects.settings(projectID)["idpConfigs"]?.objectValue ?? [:]
    }

    /// One provider as the admin API shows it; CONFIGURATION_NOT_FOUND when the project does not accept it.
    public func identityProviderConfig(_ id: String, kind: IdentityProviderConfigs.Kind, origin: RequestOrigin) throws
        -> JSONValue
    {
        guard kind.owns(id) else { throw AuthError(.invalidProviderID, id) }
        guard
            let view = IdentityProviderConfigs.view(
                id, in: origin.project,
                displayName: storedIdPConfigs(origin.project.projectID)[id]?["displayName"]?.stringValue)
        else { throw AuthError(.configurationNotFound) }
        return view
    }

    /// Every provider of `kind` the project accepts, in id order.
    public func identityProviderConfigs(kind: IdentityProviderConfigs.Kind, origin: RequestOrigin) -> [JSONValue] {
        let f = origin.project.federation
        let ids =
            kind == .builtIn
            ? IdentityProviderConfigs.builtIn.filter { id in
                (id == "google.com" && f.google != nil) || (id == "facebook.com" && f.facebook != nil)
                    || (id == "apple.com" && f.apple != nil)
            } : f.oidc.keys.sorted()
        return ids.compactMap { try? identityProviderConfig($0, kind: kind, origin: origin) }
    }

    /// Creates (`create`), changes (with `mask`, the fields named in `updateMask`) or, with `config` nil, turns off
    /// a provider, storing the change in the project's run-time settings for every server process.
    public func setIdentityProviderConfig(
        _ id: String, kind: IdentityProviderConfigs.Kind, config: [String: JSONValue]?, create: Bool,
        mask: [String]? = nil, origin: RequestOrigin
    ) async throws -> JSONValue? {
        guard kind.owns(id) else { throw AuthError(.invalidProviderID, id) }
        let projectID = origin.project.projectID
        let exists = IdentityProviderConfigs.view(id, in: origin.project) != nil
        if create && exists { throw AuthError(.configurationExists) }
        if !create && !exists { throw AuthError(.configurationNotFound) }
        var stored = storedIdPConfigs(projectID)
        if let config {
            var merged = create ? [:] : (stored[id]?.objectValue ?? currentFields(id, origin.project))
            for (key, value) in config
            where mask == nil || mask!.contains(where: { $0 == key || $0.hasPrefix(key + ".") }) {
                merged[key] = value
            }
            merged["name"] = nil
            stored[id] = .object(merged)
        } else {
            stored[id] = ["enabled": false]
        }
        var settings = projects.settings(projectID)
        settings["idpConfigs"] = .object(stored)
        // The same checks `hearth serve` makes of the config file (an Apple key that parses, …).
        if let base = projects.fileConfig(projectID),
            let problem = try base.applying(settings: settings).federation.problems.first
        {
            throw AuthError(.invalidConfig, "federation.\(problem)")
        }
        try await saveProjectSettings(projectID: projectID, settings: settings)
        logger.info("identity provider configured", metadata: ["project": "\(projectID)", "provider": "\(id)"])
        guard config != nil, let project = projects.config(projectID) else { return nil }
        return IdentityProviderConfigs.view(id, in: project, displayName: stored[id]?["displayName"]?.stringValue)
    }

    /// A provider set up in the config file, in the admin API's field names, as the base of an update.
    private func currentFields(_ id: String, _ project: ProjectConfig) -> [String: JSONValue] {
        IdentityProviderConfigs.view(id, in: project)?.objectValue ?? [:]
    }
}
