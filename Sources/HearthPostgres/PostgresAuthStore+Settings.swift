import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `SettingsStore` on PostgreSQL: run-time settings documents of projects and tenants.
extension PostgresAuthStore {
    public func projectSettings(projectID: String) async throws -> String? {
        try await query("SELECT settings FROM project_settings WHERE project_id = \(projectID)").first?
            .decode(String.self)
    }

    public func saveProjectSettings(projectID: String, settings: String, at: Date) async throws {
        try await query(
            """
            INSERT INTO project_settings (project_id, settings, updated_at)
            VALUES (\(projectID), \(settings), \(at.millisecondsSince1970))
            ON CONFLICT (project_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = EXCLUDED.updated_at
            """)
    }

    public func projectSettings(prefix: String) async throws -> [(projectID: String, settings: String)] {
        let end = StoreSupport.prefixEnd(prefix)
        return try await query(
            """
            SELECT project_id, settings FROM project_settings
            WHERE project_id COLLATE "C" >= \(prefix) AND project_id COLLATE "C" < \(end)
            ORDER BY project_id COLLATE "C"
            """
        ).map { row in
            let (id, settings) = try row.decode((String, String).self)
            return (projectID: id, settings: settings)
        }
    }

    public func deleteProjectSettings(projectID: String) async throws -> Bool {
        try await !query("DELETE FROM project_settings WHERE project_id = \(projectID) RETURNING project_id").isEmpty
    }
}
