import HearthCore

extension AuthEngine {
    /// `PATCH /v2/projects/{p}/config` (and the emulator's config route): changes run-time settings, stores them
    /// so every server process applies them, and returns the project's configuration after the change.
    public func updateProjectSettings(projectID: String, patch: [String: JSONValue], mask: [String]?) async throws
        -> ProjectConfig
    {
        try await auditedSettings("project.update", scope: projectID) {
            try await changeProjectSettings(projectID: projectID, patch: patch, mask: mask)
        }
    }

    /// Runs a change of a scope's run-time settings document as one audit event, the document (redacted) before
    /// and after.
    func auditedSettings<T>(_ action: String, scope: String, _ body: () async throws -> T) async throws -> T {
        try await audited(action, scope: scope) { change in
            change.before = .object(projects.settings(scope))
            let result = try await body()
            change.after = .object(projects.settings(scope))
            return result
        }
    }

    private func changeProjectSettings(projectID: String, patch: [String: JSONValue], mask: [String]?) async throws
        -> ProjectConfig
    {
        guard let base = projects.fileConfig(projectID) else {
            throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
        }
        let merged = try ProjectSettingsUpdate.merge(patch, into: projects.settings(projectID), mask: mask, base: base)
        try await saveProjectSettings(projectID: projectID, settings: merged)
        logger.info(
            "project settings changed",
            metadata: ["project": "\(projectID)", "settings": "\(JSONValue.object(merged).jsonText)"])
        return projects.config(projectID)!
    }

    /// Checks `settings` against the project's file configuration, stores them and applies them here; other
    /// server processes pick them up within a minute.
    func saveProjectSettings(projectID: String, settings: [String: JSONValue]) async throws {
        guard let base = projects.baseConfig(projectID, settings: settings) else {
            throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
        }
        _ = try base.applying(settings: settings)
        try await store.saveProjectSettings(
            projectID: projectID, settings: JSONValue.object(settings).jsonText, at: clock.now())
        try projects.apply(settings: settings, to: projectID)
    }

    /// `PATCH /v2/projects/{p}[/tenants/{t}]/passkeyConfig`: the relying party of passkeys, stored with the project's
    /// (or tenant's) run-time settings so every server process applies it.
    public func updatePasskeySettings(scope: ProjectConfig, patch: [String: JSONValue], mask: [String]?) async throws
        -> PasskeySettings
    {
        try await auditedSettings("passkeyConfig.update", scope: scope.projectID) {
            try await changePasskeySettings(scope: scope, patch: patch, mask: mask)
        }
    }

    private func changePasskeySettings(scope: ProjectConfig, patch: [String: JSONValue], mask: [String]?) async throws
        -> PasskeySettings
    {
        let updated = try scope.passkeys.updated(with: patch, mask: mask)
        var settings = projects.settings(scope.projectID)
        settings["passkeyConfig"] = updated.json
        try await saveProjectSettings(projectID: scope.projectID, settings: settings)
        logger.info(
            "passkey settings changed", metadata: ["project": "\(scope.projectID)", "rpId": "\(updated.rpID)"])
        return updated
    }
}
