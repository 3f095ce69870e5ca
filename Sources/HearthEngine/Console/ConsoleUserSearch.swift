import HearthCore
import HearthStore

extension AuthEngine {
    /// Most users one page of the console's search walks: with a prefix or without a filter a page needs far fewer,
    /// and a filter few users pass stops here (about 100 ms on SQLite) instead of walking a million.
    public static let consoleSearchWalk = 5000

    /// The console's "Search users": what the box holds decides the field. `+` or digits: a phone-number prefix
    /// (E.164, the `+` added); an `@`: an e-mail prefix (lower-cased, as stored); anything else: an e-mail prefix,
    /// or a uid prefix when no e-mail starts with it (`field` names the field a later page continues in).
    /// Pages are keyed by the last value shown, never counted by offset; a page walks at most `scanLimit` users.
    public func searchUsers(
        query: String, field: UserSearch.Field? = nil, after: String? = nil, filters: UserSearch, limit: Int,
        origin: RequestOrigin
    ) async throws -> (page: UserSearchPage, field: UserSearch.Field) {
        guard (1...Self.maxBatchSize).contains(limit) else { throw AuthError(.invalidArgument, "limit must be 1–1000.") }
        let text = query.trimmingCharacters(in: .whitespaces)
        var search = filters
        search.after = after.nonEmpty
        search.scanLimit = Self.consoleSearchWalk
        func run(_ field: UserSearch.Field, _ prefix: String) async throws -> UserSearchPage {
            search.field = field
            search.prefix = prefix
            return try await store.searchUsers(projectID: origin.project.projectID, search, limit: limit)
        }
        let digits = text.hasPrefix("+") ? String(text.dropFirst()) : text
        if let field { return (try await run(field, Self.searchPrefix(text, field: field)), field) }
        if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
            return (try await run(.phoneNumber, "+" + digits), .phoneNumber)
        }
        if text.isEmpty { return (try await run(.uid, ""), .uid) }
        let byEmail = try await run(.email, text.lowercased())
        if !byEmail.users.isEmpty || byEmail.resumeAfter != nil || text.contains("@") { return (byEmail, .email) }
        return (try await run(.uid, text), .uid)
    }

    static func searchPrefix(_ text: String, field: UserSearch.Field) -> String {
        switch field {
        case .email: text.lowercased()
        case .phoneNumber: text.hasPrefix("+") || text.isEmpty ? text : "+" + text
        case .uid: text
        }
    }
}
