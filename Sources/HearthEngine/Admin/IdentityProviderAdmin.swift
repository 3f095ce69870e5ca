import HearthCore
import HearthProviders

extension AuthEngine {
    /// The stored run-time configs of a project's identity providers, by provider id.
    func storedIdPConfigs(_ projectID: String) -> [String: JSONValue] {
        projects.settings(projectID)["idpConfigs"]?.objectValue ?? [:]
    }

    /// One provider as the admin API shows it; CONFIGURATION_NOT_FOUND when the project has no such config.
    ///
    /// A config stays a config when it is switched off (`enabled: false`): the admin API still shows it with every
    /// field it was given (an OIDC provider's `clientSecret` and `responseType`, a display name), as Identity
    /// Platform does; only deleting it removes it.
    public func identityProviderConfig(_ id: String, kind: IdentityProviderConfigs.Kind, origin: RequestOrigin) throws
        -> JSONValue
    {
        guard kind.owns(id) else { throw AuthError(.invalidProviderID, id) }
        let stored = storedIdPConfigs(origin.project.projectID)[id]?.objectValue
        if stored?["deleted"]?.boolValue == true { throw AuthError(.configurationNotFound) }
        let active = IdentityProviderConfigs.view(id, in: origin.project)?.objectValue
        guard active != nil || stored != nil else { throw AuthError(.configurationNotFound) }
        var view = active ?? [:]
        for (key, value) in stored ?? [:] where key != "deleted" { view[key] = value }
        // Apple's signing key is write-only, as Identity Platform keeps it.
        if var apple = view["appleSignInConfig"]?.objectValue, var flow = apple["codeFlowConfig"]?.objectValue {
            flow["privateKey"] = nil
            apple["codeFlowConfig"] = .object(flow)
            view["appleSignInConfig"] = .object(apple)
        }
        view["enabled"] = .bool(active != nil && (stored?["enabled"]?.boolValue ?? true))
        if kind == .oidc, view["responseType"] == nil { view["responseType"] = ["idToken": true, "code": false] }
        let scope =
            origin.project.tenantID.map { "projects/\(origin.project.firebaseProjectID)/tenants/\($0)" }
            ?? "projects/\(origin.project.projectID)"
        view["name"] = .string("\(scope)/\(kind.collection)/\(id)")
        return .object(view)
    }

    /// Every provider of `kind` the project accepts, in id order.
    public func identityProviderConfigs(kind: IdentityProviderConfigs.Kind, origin: RequestOrigin) -> [JSONValue] {
        let f = origin.project.federation
        let ids =
            kind == .builtIn
            ? IdentityProviderConfigs.builtIn.filter { id in
                (id == ProviderID.google && f.google != nil) || (id == ProviderID.facebook && f.facebook != nil)
                    || (id == ProviderID.apple && f.apple != nil) || f.oauth[id] != nil
                    || (id == ProviderID.twitter && f.twitter != nil)
            } : f.oidc.keys.sorted()
        let switchedOff = storedIdPConfigs(origin.project.projectID).keys.filter(kind.owns)
        return Set(ids + switchedOff).sorted().compactMap { try? identityProviderConfig($0, kind: kind, origin: origin) }
    }

    /// Creates (`create`), changes (with `mask`, the fields named in `updateMask`) or, with `config` nil, turns off
    /// a provider, storing the change in the project's run-time settings for every server process.
    public func setIdentityProviderConfig(
        _ id: String, kind: IdentityProviderConfigs.Kind, config: [String: JSONValue]?, create: Bool,
        mask: [String]? = nil, origin: RequestOrigin
    ) async throws -> JSONValue? {
        try await auditedSettings(
            create ? "provider.create" : config == nil ? "provider.delete" : "provider.update",
            scope: origin.project.projectID
        ) {
            try await changeIdentityProviderConfig(id, kind: kind, config: config, create: create, mask: mask, origin: origin)
        }
    }

    private func changeIdentityProviderConfig(
        _ id: String, kind: IdentityProviderConfigs.Kind, config: [String: JSONValue]?, create: Bool,
        mask: [String]?, origin: RequestOrigin
    ) async throws -> JSONValue? {
        guard kind.owns(id) else { throw AuthError(.invalidProviderID, id) }
        let projectID = origin.project.projectID
        let exists = (try? identityProviderConfig(id, kind: kind, origin: origin)) != nil
        if create && exists { throw AuthError(.configurationExists) }
        if !create && !exists { throw AuthError(.configurationNotFound) }
        var stored = storedIdPConfigs(projectID)
        if let config {
            var merged = create ? [:] : (stored[id]?.objectValue ?? currentFields(id, origin.project))
            merged["deleted"] = nil
            for (key, value) in config
            where mask == nil || mask!.contains(where: { $0 == key || $0.hasPrefix(key + ".") }) {
                merged[key] = value
            }
            merged["name"] = nil
            stored[id] = .object(merged)
        } else {
            // Deleted: off, and gone from the admin API, even when the config file sets it up.
            stored[id] = ["enabled": false, "deleted": true]
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
        var updated = origin
        updated.project = project
        return try identityProviderConfig(id, kind: kind, origin: updated)
    }

    /// A provider set up in the config file, in the admin API's field names, as the base of an update.
    private func currentFields(_ id: String, _ project: ProjectConfig) -> [String: JSONValue] {
        IdentityProviderConfigs.view(id, in: project)?.objectValue ?? [:]
    }
}
