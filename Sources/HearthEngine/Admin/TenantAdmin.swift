import HearthCore
import HearthStore

/// Identity Platform tenants (`/v2/projects/{p}/tenants`). A tenant is stored as a settings document under its
/// scope key (`TenantScope`): its own rules under `tenant`, and beside them the run-time settings and provider
/// configs it has of its own. Its users, sessions and codes live under the same key.
extension AuthEngine {
    public static let maxTenantPageSize = 1000

    public func createTenant(_ fields: [String: JSONValue], origin: RequestOrigin) async throws -> JSONValue {
        // Tenant events are the project's: a deleted tenant's own log could no longer be read.
        try await audited("tenant.create", scope: origin.project.firebaseProjectID) { change in
            let created = try await makeTenant(fields, origin: origin)
            change.after = created
            return created
        }
    }

    private func makeTenant(_ fields: [String: JSONValue], origin: RequestOrigin) async throws -> JSONValue {
        let project = origin.project.firebaseProjectID
        guard origin.project.tenant == nil else { throw AuthError(.unsupportedTenantOperation) }
        // A new tenant allows nothing until told (Identity Platform's defaults), whatever the emulator does for
        // tenants it creates implicitly.
        var tenant = Tenant(tenantID: "")
        try tenant.apply(fields, mask: nil)
        let stem = (tenant.displayName ?? "tenant").lowercased()
        tenant.tenantID = "\(stem)-\(random.alphanumeric(5).lowercased())"
        try await saveTenant(tenant, project: project, keeping: [:])
        logger.info("tenant created", metadata: ["project": "\(project)", "tenant": "\(tenant.tenantID)"])
        return tenant.json(project: project)
    }

    /// The tenant `origin` is scoped to (the path's `{tenant}`).
    public func tenantView(origin: RequestOrigin) throws -> JSONValue {
        guard let tenant = origin.project.tenant else { throw AuthError(.tenantNotFound) }
        return tenant.json(project: origin.project.firebaseProjectID)
    }

    public func listTenants(pageSize: Int?, pageToken: String?, origin: RequestOrigin) throws -> JSONValue {
        let size = pageSize ?? 20
        guard (1...Self.maxTenantPageSize).contains(size) else {
            throw AuthError(.invalidArgument, "pageSize must be between 1 and \(Self.maxTenantPageSize).")
        }
        let project = origin.project.firebaseProjectID
        let tenants = projects.tenants(of: project).compactMap(\.tenant)
            .filter { pageToken.nonEmpty == nil || $0.tenantID > pageToken! }
        let page = Array(tenants.prefix(size))
        var out: [String: JSONValue] = ["tenants": .array(page.map { $0.json(project: project) })]
        // As the v2 API does: a full page always carries a token, even when nothing follows.
        if page.count == size, let last = page.last { out["nextPageToken"] = .string(last.tenantID) }
        return .object(out)
    }

    public func updateTenant(_ patch: [String: JSONValue], mask: [String]?, origin: RequestOrigin) async throws
        -> JSONValue
    {
        try await audited("tenant.update", scope: origin.project.firebaseProjectID) { change in
            guard var tenant = origin.project.tenant else { throw AuthError(.tenantNotFound) }
            change.before = tenant.json(project: origin.project.firebaseProjectID)
            try tenant.apply(patch, mask: mask.flatMap { $0.isEmpty ? nil : $0 })
            try await saveTenant(
                tenant, project: origin.project.firebaseProjectID, keeping: projects.settings(origin.project.projectID))
            change.after = tenant.json(project: origin.project.firebaseProjectID)
            return change.after!
        }
    }

    /// Deletes the tenant with its users and their sessions, as Identity Platform does.
    public func deleteTenant(origin: RequestOrigin) async throws {
        try await audited("tenant.delete", scope: origin.project.firebaseProjectID) { change in
            change.before = origin.project.tenant?.json(project: origin.project.firebaseProjectID)
            try await removeTenant(origin: origin)
        }
    }

    private func removeTenant(origin: RequestOrigin) async throws {
        guard let tenant = origin.project.tenant else { throw AuthError(.tenantNotFound) }
        let key = origin.project.projectID
        let users = try await store.deleteAllUsers(projectID: key)
        _ = try await store.deleteProjectSettings(projectID: key)
        projects.removeTenant(key)
        logger.info(
            "tenant deleted",
            metadata: ["project": "\(origin.project.firebaseProjectID)", "tenant": "\(tenant.tenantID)", "users": "\(users)"])
    }

    private func saveTenant(_ tenant: Tenant, project: String, keeping settings: [String: JSONValue]) async throws {
        var document = settings
        document["tenant"] = tenant.json(project: project)
        try await saveProjectSettings(
            projectID: TenantScope.key(project: project, tenant: tenant.tenantID), settings: document)
    }
}
