import Foundation
import GRDB
import HearthCore
import HearthStore
import PostgresNIO
import Testing

@testable import HearthPostgres
@testable import HearthSQLite

/// Sessions as operators see them, and the audit log: the `SessionStore` listing and single revocation, and
/// `AuditStore`, on every backend.
@Suite("AuthStore conformance: sessions and the audit log")
struct SessionAndAuditConformance {
    @Test(arguments: Backend.available)
    func listsLiveSessionsWithTheirClientAndLastUse(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var first = Fixture.family("f1")
            first.ipPrefix = "203.0.113.0/24"
            first.userAgent = "FirebaseAuth.iOS/11.0"
            try await store.insertRefreshFamily(first, tokenHash: Fixture.hash("a1"))
            var second = Fixture.family("f2")
            second.createdAt = Fixture.t(5)
            try await store.insertRefreshFamily(second, tokenHash: Fixture.hash("b1"))
            try await store.insertRefreshFamily(Fixture.family("f3", uid: "u2"), tokenHash: Fixture.hash("c1"))
            _ = try await store.rotateRefreshToken(Fixture.rotation("a1", to: "a2", at: Fixture.t(100)))

            let sessions = try await store.sessions(projectID: "p1", uid: "u1")
            #expect(sessions.map(\.sessionID) == ["f1", "f2"])
            #expect(sessions[0].ipPrefix == "203.0.113.0/24")
            #expect(sessions[0].userAgent == "FirebaseAuth.iOS/11.0")
            #expect(sessions[0].createdAt == Fixture.t0)
            #expect(sessions[0].lastUsedAt == Fixture.t(100))
            #expect(sessions[1].lastUsedAt == Fixture.t(5))
            #expect(sessions[1].ipPrefix == nil)
            #expect(try await store.sessions(projectID: "p2", uid: "u1").isEmpty)
        }
    }

    @Test(arguments: Backend.available)
    func endsExactlyOneSessionOfItsOwnUser(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.insertRefreshFamily(Fixture.family("f1"), tokenHash: Fixture.hash("a1"))
            try await store.insertRefreshFamily(Fixture.family("f2"), tokenHash: Fixture.hash("b1"))
            try await store.insertRefreshFamily(Fixture.family("f3", uid: "u2"), tokenHash: Fixture.hash("c1"))

            // Another user's session id ends nothing.
            #expect(
                try await !store.revokeRefreshFamily(
                    projectID: "p1", uid: "u1", familyID: "f3", reason: .revoked, at: Fixture.t(1)))
            #expect(
                try await !store.revokeRefreshFamily(
                    projectID: "p2", uid: "u1", familyID: "f1", reason: .revoked, at: Fixture.t(1)))
            #expect(
                try await store.revokeRefreshFamily(
                    projectID: "p1", uid: "u1", familyID: "f1", reason: .revoked, at: Fixture.t(1)))
            // Already ended: not live any more.
            #expect(
                try await !store.revokeRefreshFamily(
                    projectID: "p1", uid: "u1", familyID: "f1", reason: .revoked, at: Fixture.t(2)))

            guard case .revoked = try await store.rotateRefreshToken(Fixture.rotation("a1", to: "a2", at: Fixture.t(3)))
            else { Issue.record("the ended session still refreshes"); return }
            guard case .rotated = try await store.rotateRefreshToken(Fixture.rotation("b1", to: "b2", family: "f2", at: Fixture.t(3)))
            else { Issue.record("the other session was ended too"); return }
            guard case .rotated = try await store.rotateRefreshToken(Fixture.rotation("c1", to: "c2", family: "f3", at: Fixture.t(3)))
            else { Issue.record("another user's session was ended"); return }
            #expect(try await store.sessions(projectID: "p1", uid: "u1").map(\.sessionID) == ["f2"])
        }
    }

    @Test(arguments: Backend.available)
    func concurrentEndsOfOneSessionSucceedOnce(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            try await store.insertRefreshFamily(Fixture.family("f1"), tokenHash: Fixture.hash("a1"))
            let other = try await openAnother()
            let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<100 {
                    group.addTask {
                        try await (i % 2 == 0 ? store : other).revokeRefreshFamily(
                            projectID: "p1", uid: "u1", familyID: "f1", reason: .revoked, at: Fixture.t(1))
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(ended == 1)
        }
    }

    static func event(
        _ id: String, at seconds: Int, project: String = "p1", actor: String = "sa@p1.iam", action: String = "user.update",
        uid: String? = "u1"
    ) -> AuditEvent {
        AuditEvent(
            id: id, time: Fixture.t(seconds), actorKind: "serviceAccount", actor: actor, clientAddress: "192.0.2.7",
            action: action, projectID: project, targetUID: uid, outcome: "success",
            diff: #"{"before":{"disabled":false},"after":{"disabled":true}}"#)
    }

    @Test(arguments: Backend.available)
    func readsTheLogNewestFirstWithFiltersAndKeysetPages(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.appendAuditEvents([
                Self.event("e1", at: 1), Self.event("e2", at: 2, action: "user.delete"),
                Self.event("e3", at: 3, actor: "cli", uid: "u2"),
                // Two events in one millisecond are ordered by id.
                Self.event("e4a", at: 4), Self.event("e4b", at: 4),
                Self.event("x1", at: 5, project: "p1/tenants/acme"), Self.event("y1", at: 6, project: "p2"),
            ])
            let all = try await store.auditEvents(AuditEventQuery(projectID: "p1", limit: 100))
            #expect(all.map(\.id) == ["e4b", "e4a", "e3", "e2", "e1"])
            #expect(all.last == Self.event("e1", at: 1))

            func ids(_ q: AuditEventQuery) async throws -> [String] { try await store.auditEvents(q).map(\.id) }
            #expect(try await ids(AuditEventQuery(projectID: "p1", actor: "cli", limit: 10)) == ["e3"])
            #expect(try await ids(AuditEventQuery(projectID: "p1", action: "user.delete", limit: 10)) == ["e2"])
            #expect(try await ids(AuditEventQuery(projectID: "p1", targetUID: "u2", limit: 10)) == ["e3"])
            #expect(
                try await ids(AuditEventQuery(projectID: "p1", since: Fixture.t(2), until: Fixture.t(4), limit: 10))
                    == ["e3", "e2"])
            #expect(try await ids(AuditEventQuery(projectID: "p1/tenants/acme", limit: 10)) == ["x1"])
            #expect(try await ids(AuditEventQuery(projectID: nil, limit: 10)).count == 7)

            // Pages of two, each after the last of the one before, tie included.
            var pages: [[String]] = []
            var before: AuditEventPosition?
            repeat {
                let page = try await store.auditEvents(AuditEventQuery(projectID: "p1", before: before, limit: 2))
                pages.append(page.map(\.id))
                before = page.count == 2 ? page.last.map { AuditEventPosition(time: $0.time, id: $0.id) } : nil
            } while before != nil
            #expect(pages == [["e4b", "e4a"], ["e3", "e2"], ["e1"]])
        }
    }

    /// Events about their own actor (an end user's sign-in) are left out of the actor's index and found through
    /// the target's: a query by actor still reads all of that actor's events, in the log's order and in pages.
    @Test(arguments: Backend.available)
    func readsAnActorsEventsAboutThemselvesAndOthersInOneOrder(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.appendAuditEvents([
                Self.event("a1", at: 1, actor: "cli", uid: "u1"),
                Self.event("a2", at: 2, actor: "u1", action: "user.signIn", uid: "u1"),
                Self.event("a3", at: 3, actor: "u1", uid: "u2"),
                Self.event("a4", at: 4, actor: "u2", action: "user.signIn", uid: "u2"),
                Self.event("a5", at: 5, actor: "cli", uid: nil),
                Self.event("a6", at: 6, actor: "u1", action: "user.signIn", uid: "u1"),
                Self.event("a7", at: 7, project: "p2", actor: "u1", action: "user.signIn", uid: "u1"),
            ])
            func ids(
                actor: String, action: String? = nil, uid: String? = nil, since: Int? = nil,
                before: AuditEventPosition? = nil, limit: Int = 10
            ) async throws -> [String] {
                try await store.auditEvents(
                    AuditEventQuery(
                        projectID: "p1", actor: actor, action: action, targetUID: uid, since: since.map(Fixture.t),
                        before: before, limit: limit)
                ).map(\.id)
            }
            #expect(try await ids(actor: "u1") == ["a6", "a3", "a2"])
            #expect(try await ids(actor: "cli") == ["a5", "a1"])
            #expect(try await ids(actor: "u1", uid: "u1") == ["a6", "a2"])
            #expect(try await ids(actor: "u1", uid: "u2") == ["a3"])
            #expect(try await ids(actor: "u1", action: "user.signIn") == ["a6", "a2"])
            #expect(try await ids(actor: "u1", since: 3) == ["a6", "a3"])
            #expect(try await ids(actor: "u1", limit: 2) == ["a6", "a3"])
            func after(_ id: String, at seconds: Int) -> AuditEventPosition {
                AuditEventPosition(time: Fixture.t(seconds), id: id)
            }
            #expect(try await ids(actor: "u1", before: after("a6", at: 6)) == ["a3", "a2"])
            #expect(try await ids(actor: "u1", before: after("a3", at: 3)) == ["a2"])
        }
    }

    @Test(arguments: Backend.available)
    func purgesEventsOlderThanTheCutoff(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.appendAuditEvents([Self.event("e1", at: 1), Self.event("e2", at: 10)])
            #expect(try await store.purgeAuditEvents(before: Fixture.t(5)) == 1)
            #expect(try await store.auditEvents(AuditEventQuery(projectID: nil, limit: 10)).map(\.id) == ["e2"])
        }
    }

    @Test(arguments: Backend.available)
    func countsActivityPerUTCDayActionAndProviderInTheRange(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            let day0 = Date(millisecondsSince1970: 1_699_920_000_000)  // 2023-11-14T00:00:00Z
            let day1 = day0.addingTimeInterval(86_400)
            let day2 = day1.addingTimeInterval(86_400)
            func activity(
                _ id: String, _ time: Date, _ action: String, provider: String? = "password", project: String = "p1"
            ) -> AuditEvent {
                AuditEvent(
                    id: id, time: time, actorKind: "endUser", actor: "u1", clientAddress: nil, action: action,
                    projectID: project, targetUID: "u1", outcome: "success",
                    diff: provider.map { #"{"after":{"signInProvider":"\#($0)"}}"# } ?? #"{"after":{"kind":"VERIFY_EMAIL"}}"#)
            }
            try await store.appendAuditEvents([
                activity("a", day0.addingTimeInterval(3600), "user.signIn"),
                // The last millisecond of a day is still that day; its midnight starts the next.
                activity("b", day1.addingTimeInterval(-0.001), "user.signIn"),
                activity("c", day0.addingTimeInterval(7200), "user.signIn", provider: "google.com"),
                activity("d", day1, "user.signIn"),
                activity("e", day1.addingTimeInterval(5 * 3600), "user.signUp"),
                activity("f", day1.addingTimeInterval(6 * 3600), "user.signInFailed"),
                activity("g", day1.addingTimeInterval(7 * 3600), "message.emailSent", provider: nil),
                // Not asked for, another project's, and outside [since, until).
                activity("h", day1.addingTimeInterval(8 * 3600), "user.update"),
                activity("i", day1.addingTimeInterval(60), "user.signIn", project: "p2"),
                activity("j", day2, "user.signIn"),
                activity("k", day0.addingTimeInterval(-0.001), "user.signIn"),
            ])
            let counts = try await store.activityCounts(
                projectID: "p1", actions: ["user.signIn", "user.signUp", "user.signInFailed", "message.emailSent"],
                since: day0, until: day2)
            #expect(
                Set(counts) == [
                    ActivityCount(day: day0, action: "user.signIn", provider: "password", count: 2),
                    ActivityCount(day: day0, action: "user.signIn", provider: "google.com", count: 1),
                    ActivityCount(day: day1, action: "user.signIn", provider: "password", count: 1),
                    ActivityCount(day: day1, action: "user.signUp", provider: "password", count: 1),
                    ActivityCount(day: day1, action: "user.signInFailed", provider: "password", count: 1),
                    ActivityCount(day: day1, action: "message.emailSent", provider: nil, count: 1),
                ])
            #expect(counts.count == 6)
            #expect(try await store.activityCounts(projectID: "p3", actions: ["user.signIn"], since: day0, until: day2).isEmpty)
        }
    }

    /// The Activity page's count reads a range of the (project, action, time) index, never the whole log.
    @Test func sqliteCountsActivityOverAnIndexRange() async throws {
        try await withTestDatabase(.sqlite) { database in
            let store = try await database.open() as! SQLiteAuthStore
            let (sql, arguments) = SQLiteAuthStore.activityCountsStatement(
                projectID: "p1", actions: ["user.signIn", "user.signUp"], since: Fixture.t0, until: Fixture.t(86_400))
            let plan = try await store.queryPlan(sql, arguments)
            #expect(
                plan.contains {
                    $0.hasPrefix("SEARCH audit_events USING INDEX audit_events_action") && $0.contains("time>?")
                        && $0.contains("time<?")
                }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN audit_events") }, "\(plan)")
            try await store.shutdown()
        }
    }

    /// A query by actor merges a range of the actor's index with one of the target's, each in the log's order: no
    /// scan of the log and no sort of it.
    @Test func sqliteReadsAnActorsEventsOverTwoIndexRanges() async throws {
        try await withTestDatabase(.sqlite) { database in
            let store = try await database.open() as! SQLiteAuthStore
            let (sql, arguments) = SQLiteAuthStore.auditEventsStatement(
                AuditEventQuery(projectID: "p1", actor: "u1", limit: 101))
            let plan = try await store.queryPlan(sql, arguments)
            #expect(plan.contains { $0.hasPrefix("SEARCH audit_events USING INDEX audit_events_actor") }, "\(plan)")
            #expect(plan.contains { $0.hasPrefix("SEARCH audit_events USING INDEX audit_events_uid") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN audit_events") || $0.contains("TEMP B-TREE") }, "\(plan)")
            try await store.shutdown()
        }
    }

    @Test(.enabled(if: Backend.postgresURL != nil))
    func postgresReadsAnActorsEventsOverTwoIndexRanges() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open() as! PostgresAuthStore
            let plan = try await store.queryPlan(
                PostgresAuthStore.auditEventsStatement(AuditEventQuery(projectID: "p1", actor: "u1", limit: 101)))
            #expect(plan.contains("audit_events_actor") && plan.contains("audit_events_uid"), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            try await store.shutdown()
        }
    }

    /// The same on PostgreSQL, with sequential scans priced out: a plan without the index would still scan.
    @Test(.enabled(if: Backend.postgresURL != nil))
    func postgresCountsActivityOverAnIndexRange() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open() as! PostgresAuthStore
            // A log of several projects and actions, analysed, so the planner chooses as it would in service.
            let actions = ["user.signIn", "user.signUp", "user.update", "user.delete", "session.revoke"]
            for batch in 0..<4 {
                try await store.appendAuditEvents(
                    (0..<1000).map { i in
                        let n = batch * 1000 + i
                        return Self.event(
                            "e\(n)", at: n * 60, project: "p\(n % 3)", action: actions[n % actions.count])
                    })
            }
            _ = try await store.query("ANALYZE audit_events")
            let statement = PostgresAuthStore.activityCountsStatement(
                projectID: "p1", actions: ["user.signIn", "user.signUp"], since: Fixture.t0, until: Fixture.t(86_400))
            let plan = try await store.queryPlan(statement)
            // A range of one of the project-led indexes, bounded by time (the action's, or the project's).
            #expect(
                plan.contains("Index Cond: ((project_id = ")
                    && plan.contains("\"time\" >= ") && plan.contains("\"time\" < "), "\(plan)")
            #expect(!plan.contains("Seq Scan"), "\(plan)")
            try await store.shutdown()
        }
    }
}

@Suite("SessionClient")
struct SessionClientTests {
    @Test func keepsTheNetworkNotTheAddress() {
        #expect(SessionClient.prefix(of: "203.0.113.77") == "203.0.113.0/24")
        #expect(SessionClient.prefix(of: "2001:db8:abcd:12::1") == "2001:db8:abcd::/48")
        #expect(SessionClient.prefix(of: "::ffff:198.51.100.9") == "198.51.100.0/24")
        #expect(SessionClient.prefix(of: "not an address") == nil)
        #expect(SessionClient.prefix(of: nil) == nil)
    }

    @Test func boundsTheUserAgent() {
        #expect(SessionClient.userAgent(String(repeating: "x", count: 5000))?.count == SessionClient.maxUserAgentLength)
        #expect(SessionClient.userAgent("") == nil)
    }
}
