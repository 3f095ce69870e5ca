import Foundation
import HearthCore

/// Settings changed at run time: a project's or a tenant's settings document, by scope key.
public protocol SettingsStore: Sendable {
    /// Project settings changed at run time through the admin config API, as JSON object text.
    func projectSettings(projectID: String) async throws -> String?

    func saveProjectSettings(projectID: String, settings: String, at: Date) async throws

    /// Every stored settings document whose id starts with `prefix` (a project's tenants: `p/tenants/`), by id.
    func projectSettings(prefix: String) async throws -> [(projectID: String, settings: String)]

    /// Forgets a settings document (a deleted tenant's); returns whether it existed.
    func deleteProjectSettings(projectID: String) async throws -> Bool
}
