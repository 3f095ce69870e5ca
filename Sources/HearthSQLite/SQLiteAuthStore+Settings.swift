import Foundation
import GRDB
import HearthCore
import HearthStore

/// `SettingsStore` on SQLite: run-time settings documents of projects and tenants.
extension SQLiteAuthStore {
    public func projectSettings(projectID: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(
                db, sql: "SELECT settings FROM project_settings WHERE project_id = ?", arguments: [projectID])
        }
    }

    public func saveProjectSettings(projectID: String, settings: String, at: Date) async throws {
        try await pool.write { db in
            try db.run(
                """
                INSERT INTO project_settings (project_id, settings, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (project_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at
                """, [projectID, settings, at.millisecondsSince1970])
        }
    }

    public func projectSettings(prefix: String) async throws -> [(projectID: String, settings: String)] {
        try await pool.read { db in
            // A range rather than LIKE, so `_` and `%` in ids mean themselves and the primary key index is used.
            try Row.fetchAll(
                db,
                sql: "SELECT project_id, settings FROM project_settings WHERE project_id >= ? AND project_id < ? ORDER BY project_id",
                arguments: [prefix, StoreSupport.prefixEnd(prefix)]
            ).map { (projectID: $0["project_id"], settings: $0["settings"]) }
        }
    }

    public func deleteProjectSettings(projectID: String) async throws -> Bool {
        try await pool.write { db in
            try db.run("DELETE FROM project_settings WHERE project_id = ?", [projectID])
            return db.changesCount > 0
        }
    }
}
