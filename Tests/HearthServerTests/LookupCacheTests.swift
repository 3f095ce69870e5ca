import Foundation
import GRDB
import HearthCore
import HearthSQLite
import Testing

/// ID-token requests are answered from caches (a verified token by its text, a user while the store's change stamp
/// is unchanged); a revocation must still be seen by the very next request, whoever made it.
@Suite("ID-token caches and revocation")
struct LookupCacheTests {
    /// Signs up, and looks up twice so both caches hold the user.
    func cachedSession(_ c: Client) async throws -> (uid: String, idToken: String) {
        let up = try await c.signUp(email: "cache@example.com", password: "pass-word")
        let token = try #require(up.string("idToken"))
        #expect(try await c.lookup(token).status == 200)
        #expect(try await c.lookup(token).status == 200)
        return (try #require(up.string("localId")), token)
    }

    @Test func aDeletedUsersTokenIsRefusedAtOnce() async throws {
        let h = try await Harness()
        try await h.run { c in
            let (_, token) = try await cachedSession(c)
            #expect(try await c.post("/v1/accounts:delete", ["idToken": .string(token)]).status == 200)
            #expect(try await c.lookup(token).errorCode == "USER_NOT_FOUND")
        }
    }

    @Test func aPasswordChangeRevokesTheCachedToken() async throws {
        let h = try await Harness()
        try await h.run { c in
            let (_, token) = try await cachedSession(c)
            // validSince has whole seconds: the change must fall in a later second than the token's auth_time.
            h.clock.advance(2)
            let changed = try await c.post("/v1/accounts:update", ["idToken": .string(token), "password": "another-pass"])
            #expect(changed.status == 200)
            #expect(try await c.lookup(token).errorCode == "TOKEN_EXPIRED")
            // The session the change handed back is good.
            #expect(try await c.lookup(try #require(changed.string("idToken"))).status == 200)
        }
    }

    @Test func anExpiredCachedTokenIsRefused() async throws {
        let h = try await Harness()
        try await h.run { c in
            let (_, token) = try await cachedSession(c)
            h.clock.advance(3601)
            #expect(try await c.lookup(token).errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func aCachedTokenIsStillCheckedAgainstItsScope() async throws {
        let h = try await Harness()
        try await h.run { c in
            let (_, token) = try await cachedSession(c)
            // The same text presented for another tenant is not a hit.
            let other = try await c.post("/v1/accounts:lookup", ["idToken": .string(token), "tenantId": "elsewhere"])
            #expect(other.status != 200)
        }
    }

    /// Another process on the same SQLite file (here: a second store, its own connections) disables, revokes and
    /// deletes; this server's next lookup sees each change though its caches hold the user.
    @Test func changesByAnotherProcessAreSeenAtOnce() async throws {
        let h = try await Harness()
        let other = try SQLiteAuthStore(path: h.directory.appendingPathComponent("hearth.sqlite").path)
        try await h.run { c in
            let (uid, token) = try await cachedSession(c)
            var user = try #require(try await other.user(projectID: h.projectID, uid: uid))

            user.disabled = true
            try await other.updateUser(user)
            #expect(try await c.lookup(token).errorCode == "USER_DISABLED")

            user.version += 1
            user.disabled = false
            try await other.updateUser(user)
            #expect(try await c.lookup(token).status == 200)

            // revokeRefreshTokens: validSince moves past the token's auth_time.
            user.version += 1
            user.validSince = Date().addingTimeInterval(3600)
            try await other.updateUser(user)
            #expect(try await c.lookup(token).errorCode == "TOKEN_EXPIRED")

            #expect(try await other.deleteUser(projectID: h.projectID, uid: uid))
            #expect(try await c.lookup(token).errorCode == "USER_NOT_FOUND")
        }
        try await other.shutdown()
    }

    /// Creating a user moves no SQLite stamp, so a "not found" answer must not be remembered: a user brought back
    /// under the same uid (an import) is found by the next request.
    @Test func aUserCreatedAfterANotFoundAnswerIsSeenAtOnce() async throws {
        let h = try await Harness()
        let other = try SQLiteAuthStore(path: h.directory.appendingPathComponent("hearth.sqlite").path)
        try await h.run { c in
            let (uid, token) = try await cachedSession(c)
            let user = try #require(try await other.user(projectID: h.projectID, uid: uid))
            #expect(try await other.deleteUser(projectID: h.projectID, uid: uid))
            #expect(try await c.lookup(token).errorCode == "USER_NOT_FOUND")
            #expect(try await c.lookup(token).errorCode == "USER_NOT_FOUND")
            try await other.insertUser(user)
            #expect(try await c.lookup(token).status == 200)
        }
        try await other.shutdown()
    }

    /// The stamp moves with every commit that writes a user or a provider link, from any connection or program on
    /// the file, and with nothing else: refresh rotations and rate-limit counters leave cached users current.
    @Test func theStoreStampMovesWithUserWritesFromAnyConnectionAndOnlyWithThem() async throws {
        let h = try await Harness()
        let path = h.directory.appendingPathComponent("hearth.sqlite").path
        let other = try SQLiteAuthStore(path: path)
        try await h.run { c in
            let (uid, _) = try await cachedSession(c)
            let refreshToken = try #require(
                try await c.post("/v1/accounts:signInWithPassword", [
                    "email": "cache@example.com", "password": "pass-word", "returnSecureToken": true,
                ]).string("refreshToken"))
            let first = try #require(h.store.changeStamp())
            #expect(h.store.changeStamp() == first)

            _ = try await other.incrementCounter("k", windowSeconds: 60, now: Date())
            _ = try await h.store.incrementCounter("k", windowSeconds: 60, now: Date())
            #expect(try await c.refresh(refreshToken).string("refresh_token") != nil)
            #expect(h.store.changeStamp() == first)

            var user = try #require(try await other.user(projectID: h.projectID, uid: uid))
            user.displayName = "Moved"
            try await other.updateUser(user)
            let second = try #require(h.store.changeStamp())
            #expect(second != first)

            let raw = try DatabaseQueue(path: path)
            try await raw.write { db in
                try db.execute(
                    sql: "INSERT INTO provider_links (project_id, provider_id, raw_id, uid) VALUES (?, 'google.com', 'g-1', ?)",
                    arguments: [h.projectID, uid])
            }
            try raw.close()
            #expect(h.store.changeStamp() != second)
        }
        try await other.shutdown()
    }
}
