import Foundation
import GRDB
import HearthCore
import HearthStore

/// `UserStore.searchUsers` on SQLite: a range over the field's index (`users_email`, `users_phone`, the primary
/// key), at most `scanLimit` rows of it, the filters applied to the rows it yields.
extension SQLiteAuthStore {
    public func searchUsers(projectID: String, _ search: UserSearch, limit: Int) async throws -> UserSearchPage {
        let (sql, arguments) = Self.searchStatement(projectID: projectID, search, limit: limit)
        let (walkSQL, walkArguments) = Self.walkStatement(projectID: projectID, search)
        return try await pool.read { db in
            let users = SQLiteUserRow.users(from: try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments))
            guard users.count < limit, search.filters else { return UserSearchPage(users: users, resumeAfter: nil) }
            // Fewer than a page passed the filters: say where the walk stopped if it stopped at its limit.
            let walked = try Row.fetchOne(db.cachedStatement(sql: walkSQL), arguments: walkArguments)
            let count: Int = walked?["walked"] ?? 0
            return UserSearchPage(users: users, resumeAfter: count >= search.scanLimit ? walked?["last"] : nil)
        }
    }

    /// How many rows a page's walk covers, and the last value it reaches.
    static func walkStatement(projectID: String, _ search: UserSearch) -> (String, StatementArguments) {
        let (range, arguments) = rangeConditions(projectID: projectID, search)
        let column = search.column
        var all = arguments
        _ = all.append(contentsOf: [search.scanLimit])
        return (
            """
            SELECT COUNT(*) AS walked, MAX(\(column)) AS last
            FROM (SELECT \(column) FROM users WHERE \(range) ORDER BY \(column) LIMIT ?)
            """, all
        )
    }

    /// The range of the field's index a search walks: the project, the prefix, the keyset position.
    static func rangeConditions(projectID: String, _ search: UserSearch) -> (String, StatementArguments) {
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
        return (conditions.joined(separator: " AND "), arguments)
    }

    /// The statement of a search, apart so a test can ask SQLite for its plan.
    static func searchStatement(projectID: String, _ search: UserSearch, limit: Int) -> (String, StatementArguments) {
        let column = search.column
        let (range, rangeArguments) = rangeConditions(projectID: projectID, search)
        var conditions: [String] = []
        var arguments = rangeArguments
        _ = arguments.append(contentsOf: [search.scanLimit])
        if let disabled = search.disabled {
            conditions.append("disabled = ?")
            _ = arguments.append(contentsOf: [disabled])
        }
        if search.unverifiedOnly { conditions.append("email IS NOT NULL AND email_verified = 0") }
        let linked = "SELECT 1 FROM provider_links p WHERE p.project_id = w.project_id AND p.uid = w.uid"
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
        // The walk is bounded first (`scanLimit` rows of the range), then filtered.
        let filters = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT \(SQLiteUserRow.columns)
            FROM (SELECT * FROM (SELECT * FROM users WHERE \(range) ORDER BY \(column) LIMIT ?) w
                  \(filters) ORDER BY \(column) LIMIT ?) u
            \(SQLiteUserRow.joinLinks)
            ORDER BY u.\(column), l.provider_id
            """
        return (sql, arguments)
    }
}
