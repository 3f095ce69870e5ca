import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `UserStore.searchUsers` on PostgreSQL: a range in byte order over the field's `*_search` index
/// (migration `v18_user_search`), at most `scanLimit` rows of it, the filters applied to the rows it yields.
extension PostgresAuthStore {
    public func searchUsers(projectID: String, _ search: UserSearch, limit: Int) async throws -> UserSearchPage {
        let users = try PostgresUserRow.users(
            from: await query(Self.searchStatement(projectID: projectID, search, limit: limit)))
        guard users.count < limit, search.filters else { return UserSearchPage(users: users, resumeAfter: nil) }
        // Fewer than a page passed the filters: say where the walk stopped if it stopped at its limit.
        var binds = PostgresBindings()
        let range = Self.rangeConditions(projectID: projectID, search, binds: &binds)
        binds.append(search.scanLimit)
        let column = "\(search.column) COLLATE \"C\""
        let walked = try await query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT COUNT(*) AS walked, MAX(v) AS last
                    FROM (SELECT \(column) AS v FROM users WHERE \(range) ORDER BY \(column) LIMIT $\(binds.count)) w
                    """, binds: binds)
        ).first?.makeRandomAccess()
        let count = try walked?["walked"].decode(Int.self) ?? 0
        return UserSearchPage(
            users: users, resumeAfter: count >= search.scanLimit ? try walked?["last"].decode(String?.self) : nil)
    }

    /// The range of the field's index a search walks: the project, the prefix, the keyset position.
    static func rangeConditions(projectID: String, _ search: UserSearch, binds: inout PostgresBindings) -> String {
        func bind(_ value: String) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let column = "\(search.column) COLLATE \"C\""
        var conditions = ["project_id = \(bind(projectID))", "\(column) >= \(bind(search.prefix))"]
        if let end = search.prefixEnd { conditions.append("\(column) < \(bind(end))") }
        if let after = search.after { conditions.append("\(column) > \(bind(after))") }
        return conditions.joined(separator: " AND ")
    }

    /// The statement of a search, apart so a test can ask PostgreSQL for its plan.
    static func searchStatement(projectID: String, _ search: UserSearch, limit: Int) -> PostgresQuery {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let column = "\(search.column) COLLATE \"C\""
        let range = rangeConditions(projectID: projectID, search, binds: &binds)
        let scanLimit = bind(search.scanLimit)
        var conditions: [String] = []
        if let disabled = search.disabled { conditions.append("disabled = \(bind(disabled))") }
        if search.unverifiedOnly { conditions.append("email IS NOT NULL AND NOT email_verified") }
        let linked = "SELECT 1 FROM provider_links p WHERE p.project_id = w.project_id AND p.uid = w.uid"
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
        // The walk is bounded first (`scanLimit` rows of the range), then filtered.
        let filters = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT \(PostgresUserRow.columns)
            FROM (SELECT * FROM (SELECT * FROM users WHERE \(range) ORDER BY \(column) LIMIT \(scanLimit)) w
                  \(filters) ORDER BY \(column) LIMIT \(bind(limit))) u
            \(PostgresUserRow.joinLinks)
            ORDER BY u.\(column), l.provider_id COLLATE "C", l.raw_id COLLATE "C"
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
