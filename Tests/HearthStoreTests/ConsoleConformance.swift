import Foundation
import GRDB
import HearthCore
import HearthStore
import PostgresNIO
import Testing

@testable import HearthPostgres
@testable import HearthSQLite

/// The console's state on every backend: console admins (a setup link used once, failures counted atomically, a
/// TOTP step and a recovery code each accepted once, sessions) and the users' prefix search with its filters,
/// served by an index range on both databases.
@Suite("AuthStore conformance: console")
struct ConsoleConformance {
    static func admin(_ email: String = "ops@example.com", setup: String? = "setup-1") -> ConsoleAdmin {
        ConsoleAdmin(
            email: email, role: .admin, setupTokenHash: setup, setupExpiresAt: Fixture.t(900), createdAt: Fixture.t0)
    }

    @Test(arguments: Backend.available)
    func aSetupLinkIsUsedOnce(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ async throws in
            #expect(try await store.insertConsoleAdmin(Self.admin()) == true)
            #expect(try await store.insertConsoleAdmin(Self.admin(setup: "setup-2")) == false)
            #expect(try await store.consoleAdmin(setupTokenHash: "setup-1")?.email == "ops@example.com")
            var done = Self.admin(setup: nil)
            done.passwordHash = "phc"
            done.recoveryCodeHashes = ["aa", "bb"]
            #expect(try await store.updateConsoleAdmin(done, expectingSetupTokenHash: "setup-1") == true)
            // A second browser posting the same link changes nothing.
            var other = Self.admin(setup: nil)
            other.passwordHash = "attacker"
            #expect(try await store.updateConsoleAdmin(other, expectingSetupTokenHash: "setup-1") == false)
            #expect(try await store.consoleAdmin(email: "ops@example.com") == done)
            #expect(try await store.consoleAdmin(setupTokenHash: "setup-1") == nil)
            #expect(try await store.consoleAdmins().map(\.email) == ["ops@example.com"])
        }
    }

    @Test(arguments: Backend.available)
    func failuresStepsAndRecoveryCodesCountOnce(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ async throws in
            var admin = Self.admin(setup: nil)
            admin.recoveryCodeHashes = ["aa", "bb", "cc"]
            _ = try await store.insertConsoleAdmin(admin)
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await store.recordConsoleSignInFailure(email: "ops@example.com") {
                            $0 >= 5 ? Fixture.t($0) : nil
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.sorted() == Array(1...20))
            let locked = try #require(try await store.consoleAdmin(email: "ops@example.com"))
            #expect(locked.failedAttempts == 20 && locked.lockedUntil != nil)
            #expect(try await store.recordConsoleSignInFailure(email: "nobody@example.com") { _ in nil } == 0)

            #expect(try await store.acceptConsoleTOTPStep(email: "ops@example.com", step: 100) == true)
            #expect(try await store.acceptConsoleTOTPStep(email: "ops@example.com", step: 100) == false)
            #expect(try await store.acceptConsoleTOTPStep(email: "ops@example.com", step: 99) == false)
            #expect(try await store.acceptConsoleTOTPStep(email: "ops@example.com", step: 101) == true)

            let spent = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await store.spendConsoleRecoveryCode(email: "ops@example.com", codeHash: "bb") }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(spent == 1)
            #expect(try await store.consoleAdmin(email: "ops@example.com")?.recoveryCodeHashes == ["aa", "cc"])
            #expect(try await store.spendConsoleRecoveryCode(email: "ops@example.com", codeHash: "a") == false)
        }
    }

    @Test(arguments: Backend.available)
    func sessionsAreKeptByHash(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ async throws in
            let one = ConsoleSession(tokenHash: "h1", email: "ops@example.com", createdAt: Fixture.t0, lastSeenAt: Fixture.t0)
            try await store.insertConsoleSession(one)
            try await store.insertConsoleSession(ConsoleSession(tokenHash: "h2", email: "ops@example.com", createdAt: Fixture.t0, lastSeenAt: Fixture.t0))
            try await store.insertConsoleSession(ConsoleSession(tokenHash: "h3", email: "viewer@example.com", createdAt: Fixture.t0, lastSeenAt: Fixture.t0))
            try await store.touchConsoleSession(tokenHash: "h1", at: Fixture.t(60))
            #expect(try await store.consoleSession(tokenHash: "h1")?.lastSeenAt == Fixture.t(60))
            try await store.deleteConsoleSession(tokenHash: "h1")
            #expect(try await store.consoleSession(tokenHash: "h1") == nil)
            try await store.deleteConsoleSessions(email: "ops@example.com")
            #expect(try await store.consoleSession(tokenHash: "h2") == nil)
            #expect(try await store.consoleSession(tokenHash: "h3") != nil)
        }
    }

    static func population() -> [UserRecord] {
        var users: [UserRecord] = []
        for i in 0..<30 {
            var user = Fixture.user(
                uid: String(format: "uid%02d", i), email: String(format: "user%02d@example.com", i),
                phone: String(format: "+1650555%04d", i), providers: [])
            user.disabled = i % 3 == 0
            user.emailVerified = i % 2 == 0
            if i % 5 == 0 { user.providers = [ProviderUserInfo(providerID: "google.com", rawID: "g\(i)")] }
            users.append(user)
        }
        users.append(Fixture.user(uid: "u_%x", email: "under_score%@example.com", phone: nil, providers: []))
        users.append(Fixture.user(uid: "zé", email: "zoë@example.com", phone: nil, providers: []))
        users.append(
            UserRecord(projectID: "p1", uid: "anon1", validSince: Fixture.t0, createdAt: Fixture.t0))
        users.append(Fixture.user(project: "p2", uid: "uid00", email: "user00@example.com", providers: []))
        return users
    }

    @Test(arguments: Backend.available)
    func searchesAPrefixOfEachFieldInOrder(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ async throws in
            for user in Self.population() { try await store.insertUser(user) }
            func uids(_ search: UserSearch, limit: Int = 50) async throws -> [String] {
                try await store.searchUsers(projectID: "p1", search, limit: limit).users.map(\.uid)
            }
            #expect(try await uids(UserSearch(field: .email, prefix: "user1")) == (10...19).map { "uid\($0)" })
            // Keyset pages: after the last value shown, never an offset.
            #expect(try await uids(UserSearch(field: .email, prefix: "user"), limit: 4) == ["uid00", "uid01", "uid02", "uid03"])
            #expect(
                try await uids(UserSearch(field: .email, prefix: "user", after: "user03@example.com"), limit: 2)
                    == ["uid04", "uid05"])
            #expect(try await uids(UserSearch(field: .phoneNumber, prefix: "+1650555002")) == (20...29).map { "uid\($0)" })
            #expect(try await uids(UserSearch(field: .uid, prefix: "uid2")) == (20...29).map { "uid\($0)" })
            // `_` and `%` mean themselves; a prefix may end in any character.
            #expect(try await uids(UserSearch(field: .email, prefix: "under_")) == ["u_%x"])
            #expect(try await uids(UserSearch(field: .uid, prefix: "u_%")) == ["u_%x"])
            #expect(try await uids(UserSearch(field: .email, prefix: "zoë")) == ["zé"])
            #expect(try await uids(UserSearch(field: .uid, prefix: "zé")) == ["zé"])
            // Another project's users are never found.
            #expect(try await store.searchUsers(projectID: "p2", UserSearch(field: .email, prefix: ""), limit: 50).users.count == 1)

            #expect(
                try await uids(UserSearch(field: .email, prefix: "user", disabled: true))
                    == stride(from: 0, to: 30, by: 3).map { String(format: "uid%02d", $0) })
            #expect(
                try await uids(UserSearch(field: .email, prefix: "user0", unverifiedOnly: true))
                    == ["uid01", "uid03", "uid05", "uid07", "uid09"])
            #expect(
                try await uids(UserSearch(field: .email, prefix: "user", provider: "google.com"))
                    == ["uid00", "uid05", "uid10", "uid15", "uid20", "uid25"])
            let withLinks = try await store.searchUsers(
                projectID: "p1", UserSearch(field: .email, prefix: "user", provider: "google.com"), limit: 50).users
            #expect(withLinks.allSatisfy { $0.providers.map(\.providerID) == ["google.com"] })
            #expect(try await uids(UserSearch(field: .uid, prefix: "", anonymousOnly: true)) == ["anon1"])
            #expect(try await uids(UserSearch(field: .uid, prefix: "", provider: "phone"), limit: 100).count == 30)
        }
    }

    /// A filter few users pass walks at most `scanLimit` rows of the range and says where it stopped; a page that
    /// fills, or a walk that ends before its bound, has nowhere to resume.
    @Test(arguments: Backend.available)
    func aFilteredWalkStopsAtItsBound(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ async throws in
            for user in Self.population() { try await store.insertUser(user) }
            var search = UserSearch(field: .email, prefix: "user", disabled: true)
            search.scanLimit = 5
            let first = try await store.searchUsers(projectID: "p1", search, limit: 50)
            #expect(first.users.map(\.uid) == ["uid00", "uid03"])
            #expect(first.resumeAfter == "user04@example.com")
            search.after = first.resumeAfter
            let second = try await store.searchUsers(projectID: "p1", search, limit: 50)
            #expect(second.users.map(\.uid) == ["uid06", "uid09"])
            #expect(second.resumeAfter == "user09@example.com")
            search.scanLimit = 100
            search.after = nil
            let whole = try await store.searchUsers(projectID: "p1", search, limit: 50)
            #expect(whole.users.count == 10 && whole.resumeAfter == nil)
            var unfiltered = UserSearch(field: .email, prefix: "user")
            unfiltered.scanLimit = 5
            let page = try await store.searchUsers(projectID: "p1", unfiltered, limit: 3)
            #expect(page.users.map(\.uid) == ["uid00", "uid01", "uid02"] && page.resumeAfter == nil)
        }
    }

    /// Every field's search is a range over an index, whatever the filters: never a scan of the users.
    @Test(arguments: [UserSearch.Field.email, .phoneNumber, .uid])
    func sqliteSearchesAnIndexRange(_ field: UserSearch.Field) async throws {
        try await withTestDatabase(.sqlite) { database in
            let store = try await database.open() as! SQLiteAuthStore
            let search = UserSearch(
                field: field, prefix: "a", after: "ab", provider: "google.com", disabled: false, unverifiedOnly: true)
            let (sql, arguments) = SQLiteAuthStore.searchStatement(projectID: "p1", search, limit: 50)
            let plan = try await store.queryPlan(sql, arguments)
            let index = ["email": "users_email", "phone_number": "users_phone", "uid": "PRIMARY KEY"][search.column]!
            // The range itself bounds the search (`email>? AND email<?`), not only the project.
            #expect(
                plan.contains {
                    $0.hasPrefix("SEARCH users USING") && $0.contains(index) && $0.contains("\(search.column)>?")
                        && $0.contains("\(search.column)<?")
                }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN users") || $0.hasPrefix("SCAN provider_links") }, "\(plan)")
            try await store.shutdown()
        }
    }

    /// The same on PostgreSQL, with sequential scans priced out: a plan without the index would still scan.
    @Test(.enabled(if: Backend.postgresURL != nil), arguments: [UserSearch.Field.email, .phoneNumber, .uid])
    func postgresSearchesAnIndexRange(_ field: UserSearch.Field) async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open() as! PostgresAuthStore
            let search = UserSearch(field: field, prefix: "a", after: "ab", disabled: false, unverifiedOnly: true)
            let statement = PostgresAuthStore.searchStatement(projectID: "p1", search, limit: 50)
            let plan = try await store.queryPlan(statement)
            let index = ["email": "users_email_search", "phone_number": "users_phone_search", "uid": "users_uid_search"][
                search.column]!
            #expect(plan.contains("Index Scan using \(index)") && plan.contains("Index Cond"), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            try await store.shutdown()
        }
    }
}
