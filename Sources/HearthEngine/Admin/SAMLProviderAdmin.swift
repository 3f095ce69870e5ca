import HearthCore

/// SAML provider configs (`/v2/projects/{p}/inboundSamlConfigs`), kept and served as the Admin SDKs manage them:
/// `idpConfig` (`idpEntityId`, `ssoUrl`, `idpCertificates`, `signRequest`), `spConfig` (`spEntityId`,
/// `callbackUri`), `displayName`, `enabled`. Hearth does not sign users in with SAML; the configs are stored in the
/// scope's run-time settings under `samlConfigs`, so a migration keeps them and the Admin SDKs' calls succeed.
extension AuthEngine {
    static let samlFields = ["idpConfig", "spConfig", "displayName", "enabled"]

    private func samlConfigs(_ origin: RequestOrigin) -> [String: JSONValue] {
        projects.settings(origin.project.projectID)["samlConfigs"]?.objectValue ?? [:]
    }

    private func samlView(_ id: String, _ config: [String: JSONValue], origin: RequestOrigin) -> JSONValue {
        var view = config
        let scope =
            origin.project.tenantID.map { "projects/\(origin.project.firebaseProjectID)/tenants/\($0)" }
            ?? "projects/\(origin.project.projectID)"
        view["name"] = .string("\(scope)/inboundSamlConfigs/\(id)")
        view["enabled"] = view["enabled"] ?? .bool(false)
        return .object(view)
    }

    static func isSAMLProviderID(_ id: String) -> Bool { id.hasPrefix("saml.") && id.count > 5 }

    public func samlProviderConfig(_ id: String, origin: RequestOrigin) throws -> JSONValue {
        guard Self.isSAMLProviderID(id) else { throw AuthError(.invalidProviderID, id) }
        guard let config = samlConfigs(origin)[id]?.objectValue else { throw AuthError(.configurationNotFound) }
        return samlView(id, config, origin: origin)
    }

    /// A page of configs in id order; the page token is the last id of the previous page.
    public func samlProviderConfigs(pageSize: Int?, pageToken: String?, origin: RequestOrigin) throws -> JSONValue {
        let size = pageSize ?? 100
        guard (1...100).contains(size) else { throw AuthError(.invalidArgument, "pageSize must be 1 to 100") }
        let all = samlConfigs(origin).sorted { $0.key < $1.key }.filter { pageToken.nonEmpty == nil || $0.key > pageToken! }
        let page = all.prefix(size)
        var out: [String: JSONValue] = [
            "inboundSamlConfigs": .array(page.compactMap { id, c in c.objectValue.map { samlView(id, $0, origin: origin) } })
        ]
        if all.count > size, let last = page.last { out["nextPageToken"] = .string(last.key) }
        return .object(out)
    }

    /// Creates (`create`), changes (the fields `mask` names, or every field given) or, with `config` nil, deletes.
    public func setSAMLProviderConfig(
        _ id: String, config: [String: JSONValue]?, create: Bool, mask: [String]? = nil, origin: RequestOrigin
    ) async throws -> JSONValue? {
        try await auditedSettings(
            create ? "provider.create" : config == nil ? "provider.delete" : "provider.update",
            scope: origin.project.projectID
        ) {
            try await changeSAMLProviderConfig(id, config: config, create: create, mask: mask, origin: origin)
        }
    }

    private func changeSAMLProviderConfig(
        _ id: String, config: [String: JSONValue]?, create: Bool, mask: [String]?, origin: RequestOrigin
    ) async throws -> JSONValue? {
        guard Self.isSAMLProviderID(id) else { throw AuthError(.invalidProviderID, id) }
        var stored = samlConfigs(origin)
        if create && stored[id] != nil { throw AuthError(.configurationExists) }
        if !create && stored[id] == nil { throw AuthError(.configurationNotFound) }
        if let config {
            var merged = create ? [:] : (stored[id]?.objectValue ?? [:])
            for field in Self.samlFields {
                let selected = mask.map { $0.contains { $0 == field || $0.hasPrefix(field + ".") } } ?? (config[field] != nil)
                guard selected else { continue }
                if let mask, case .object(var target)? = merged[field], case .object(let patch)? = config[field] {
                    // A mask may name nested fields (`idpConfig.ssoUrl`): change just those.
                    for (key, value) in patch where mask.contains(field) || mask.contains("\(field).\(key)") {
                        target[key] = value
                    }
                    merged[field] = .object(target)
                } else {
                    merged[field] = config[field] ?? .null
                }
            }
            if create {
                guard merged["idpConfig"]?["idpEntityId"]?.stringValue.nonEmpty != nil else {
                    throw AuthError(.invalidConfig, "idpConfig.idpEntityId is required")
                }
                guard merged["spConfig"]?["spEntityId"]?.stringValue.nonEmpty != nil else {
                    throw AuthError(.invalidConfig, "spConfig.spEntityId is required")
                }
            }
            stored[id] = .object(merged.filter { $0.value != .null })
        } else {
            stored[id] = nil
        }
        var settings = projects.settings(origin.project.projectID)
        settings["samlConfigs"] = .object(stored)
        try await saveProjectSettings(projectID: origin.project.projectID, settings: settings)
        logger.info("SAML provider configured", metadata: ["project": "\(origin.project.projectID)", "provider": "\(id)"])
        return stored[id]?.objectValue.map { samlView(id, $0, origin: origin) }
    }
}
