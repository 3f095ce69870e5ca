import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `UserStore.searchUsers` on PostgreSQL: a range in byte order over the field's `*_search` index
/// (migration `v18_user_search`), the filters applied to the rows the range yields.
extension PostgresAuthStore {
    public func searchUsers(projectID: String, _ search: UserSearch, limit: Int) async throws -> [UserRecord] {
        try PostgresUserRow.users(from: await query(Self.searchStatement(projectID: projectID, search, limit: limit)))
    }

    /// The statement of a search, apart so a test can ask PostgreSQL for its plan.
    static func searchStatement(projectID: String, _ search: UserSearch, limit: Int) -> PostgresQuery {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let column = "\(search.column) COLLATE \"C\""
        var conditions = ["project_id = \(bind(projectID))", "\(column) >= \(bind(search.prefix))"]
        if let end = search.prefixEnd { conditions.append("\(column) < \(bind(end))") }
        if let after = search.after { conditions.append("\(column) > \(bind(after))") }
        if let disabled = search.disabled { conditions.append("disabled = \(bind(disabled))") }
        if search.unverifiedOnly { conditions.append("email IS NOT NULL AND NOT email_verified") }
        let linked = "SELECT 1 FROM provider_links p WHERE p.project_id = users.project_id AND p.uid = users.uid"
        if search.anonymousOnly {
            conditions.append(
                "email IS NULL AND password_hash IS NULL AND phone_number IS NULL AND NOT custom_auth AND NOT EXISTS (\(linked))"
            )
        }
        switch search.provider {
        case nil: break
        case ProviderID.password?: conditions.append("password_hash IS NOT NULL")
        case ProviderID.phone?: conditions.append("phone_number IS NOT NULL")
        case let provider?: conditions.append("EXISTS (\(linked) AND p.provider_id = \(bind(provider)))")
        }
        let sql = """
            SELECT \(PostgresUserRow.columns)
            FROM (SELECT * FROM users WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(column)
                  LIMIT \(bind(limit))) u
            \(PostgresUserRow.joinLinks)
            ORDER BY u.\(column), l.provider_id COLLATE "C", l.raw_id COLLATE "C"
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
