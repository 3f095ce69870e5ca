import Foundation
import GRDB
import HearthCore
import HearthStore

/// `UserStore.searchUsers` on SQLite: a range over the field's index (`users_email`, `users_phone`, the primary
/// key), the filters applied to the rows the range yields.
extension SQLiteAuthStore {
    public func searchUsers(projectID: String, _ search: UserSearch, limit: Int) async throws -> [UserRecord] {
        let (sql, arguments) = Self.searchStatement(projectID: projectID, search, limit: limit)
        return try await pool.read { db in
            SQLiteUserRow.users(from: try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments))
        }
    }

    /// The statement of a search, apart so a test can ask SQLite for its plan.
    static func searchStatement(projectID: String, _ search: UserSearch, limit: Int) -> (String, StatementArguments) {
        let column = search.column
        var conditions = ["project_id = ?", "\(column) >= ?"]
        var arguments: StatementArguments = [projectID, search.prefix]
        if let end = search.prefixEnd {
            conditions.append("\(column) < ?")
            _ = arguments.append(contentsOf: [end])
        }
        if let after = search.after {
            conditions.append("\(column) > ?")
            _ = arguments.append(contentsOf: [after])
        }
        if let disabled = search.disabled {
            conditions.append("disabled = ?")
            _ = arguments.append(contentsOf: [disabled])
        }
        if search.unverifiedOnly { conditions.append("email IS NOT NULL AND email_verified = 0") }
        let linked = "SELECT 1 FROM provider_links p WHERE p.project_id = users.project_id AND p.uid = users.uid"
        if search.anonymousOnly {
            conditions.append(
                "email IS NULL AND password_hash IS NULL AND phone_number IS NULL AND custom_auth = 0 AND NOT EXISTS (\(linked))"
            )
        }
        switch search.provider {
        case nil: break
        case ProviderID.password?: conditions.append("password_hash IS NOT NULL")
        case ProviderID.phone?: conditions.append("phone_number IS NOT NULL")
        case let provider?:
            conditions.append("EXISTS (\(linked) AND p.provider_id = ?)")
            _ = arguments.append(contentsOf: [provider])
        }
        _ = arguments.append(contentsOf: [limit])
        let sql = """
            SELECT \(SQLiteUserRow.columns)
            FROM (SELECT * FROM users WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(column) LIMIT ?) u
            \(SQLiteUserRow.joinLinks)
            ORDER BY u.\(column), l.provider_id
            """
        return (sql, arguments)
    }
}
