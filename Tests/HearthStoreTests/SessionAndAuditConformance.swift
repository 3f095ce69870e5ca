import Foundation
import HearthCore
import HearthStore
import Testing

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
            guard case .rotated = try await store.rotateRefreshToken(Fixture.rotation("b1", to: "b2", at: Fixture.t(3)))
            else { Issue.record("the other session was ended too"); return }
            guard case .rotated = try await store.rotateRefreshToken(Fixture.rotation("c1", to: "c2", at: Fixture.t(3)))
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

    @Test(arguments: Backend.available)
    func purgesEventsOlderThanTheCutoff(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.appendAuditEvents([Self.event("e1", at: 1), Self.event("e2", at: 10)])
            #expect(try await store.purgeAuditEvents(before: Fixture.t(5)) == 1)
            #expect(try await store.auditEvents(AuditEventQuery(projectID: nil, limit: 10)).map(\.id) == ["e2"])
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
