import Foundation
import GRDB
import HearthCore
import HearthSQLite
import HearthTokens
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

    /// The lookup answer is encoded once per version of the user (`LookupAnswers`): every change, through the API
    /// or by another process on the file, is in the very next answer, and a change undone brings the first answer
    /// back.
    @Test func theLookupAnswerFollowsEveryChangeOfTheUser() async throws {
        let h = try await Harness()
        let other = try SQLiteAuthStore(path: h.directory.appendingPathComponent("hearth.sqlite").path)
        try await h.run { c in
            let (uid, token) = try await cachedSession(c)
            func answered() async throws -> JSONValue? {
                let r = try await c.lookup(token)
                #expect(r.status == 200, "\(r.json)")
                return r["users"]?[0]
            }
            let first = try #require(try await answered())
            #expect(first["displayName"] == nil)

            let renamed = try await c.post(
                "/v1/accounts:update", ["idToken": .string(token), "displayName": "Ada"])
            #expect(renamed.status == 200)
            #expect(try await answered()?["displayName"]?.stringValue == "Ada")

            var user = try #require(try await other.user(projectID: h.projectID, uid: uid))
            user.displayName = "Ada Lovelace"
            user.customClaims = #"{"role":"admin"}"#
            try await other.updateUser(user)
            let changed = try await answered()
            #expect(changed?["displayName"]?.stringValue == "Ada Lovelace")
            #expect(changed?["customAttributes"]?.stringValue == #"{"role":"admin"}"#)

            user.version += 1
            user.displayName = nil
            user.customClaims = nil
            try await other.updateUser(user)
            #expect(try await answered() == first)
        }
        try await other.shutdown()
    }

    /// Answers are kept by uid: a project's user and a tenant's user of the same uid each get their own, however
    /// their lookups alternate.
    @Test func oneUIDInTwoScopesGetsTwoAnswers() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { c in
            func signIn(tenant: String?) async throws -> String {
                var claims: [String: JSONValue] = ["aud": .string(CustomClaims.customTokenAudience), "uid": "same-uid"]
                var body: [String: JSONValue] = ["returnSecureToken": true]
                if let tenant {
                    claims["tenant_id"] = .string(tenant)
                    body["tenantId"] = .string(tenant)
                }
                body["token"] = .string(JWS.unsigned(payload: .object(claims)))
                let r = try await c.post("/v1/accounts:signInWithCustomToken", .object(body))
                #expect(r.status == 200, "\(r.json)")
                return try #require(r.string("idToken"))
            }
            let inProject = try await signIn(tenant: nil)
            let inTenant = try await signIn(tenant: "tenant-a")
            for _ in 0..<2 {
                let project = try await c.lookup(inProject)
                #expect(project["users"]?[0]?["localId"]?.stringValue == "same-uid")
                #expect(project["users"]?[0]?["tenantId"] == nil)
                let tenant = try await c.lookup(inTenant)
                #expect(tenant["users"]?[0]?["localId"]?.stringValue == "same-uid")
                #expect(tenant["users"]?[0]?["tenantId"]?.stringValue == "tenant-a")
            }
        }
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

    /// A sign-in leaves the stamp where it was, so this server drops the signed-in user from its own cache: the
    /// next lookup with a token it holds answers the new sign-in and refresh times.
    @Test func aSignInIsInTheNextLookupOfItsUser() async throws {
        let h = try await Harness()
        try await h.run { c in
            let (_, token) = try await cachedSession(c)
            let before = try await c.lookup(token).json["users"]?[0]
            h.clock.advance(90)
            let again = try await c.post("/v1/accounts:signInWithPassword", [
                "email": "cache@example.com", "password": "pass-word", "returnSecureToken": true,
            ])
            #expect(again.status == 200)
            let after = try await c.lookup(token).json["users"]?[0]
            let signedInAt = h.clock.authClock.now().millisecondsSince1970
            #expect(after?["lastLoginAt"]?.stringValue == String(signedInAt))
            #expect(before?["lastLoginAt"]?.stringValue == String(signedInAt - 90_000))
            let refreshed = try #require(after?["lastRefreshAt"]?.stringValue)
            #expect(refreshed != before?["lastRefreshAt"]?.stringValue)
        }
    }

    /// Of `users` and `passkey_credentials`, every column but a sign-in's bookkeeping moves the stamp when written,
    /// from any connection: a column added later and not watched would let a cached user go stale.
    @Test func everyColumnButASignInsBookkeepingMovesTheStamp() async throws {
        let h = try await Harness()
        let path = h.directory.appendingPathComponent("hearth.sqlite").path
        let bookkeeping: [String: Set<String>] = [
            "users": ["last_login_at", "last_refresh_at"],
            "passkey_credentials": ["sign_count", "backup_eligible", "backed_up", "last_used_at"],
        ]
        try await h.run { c in
            let (uid, _) = try await cachedSession(c)
            let raw = try DatabaseQueue(path: path)
            try await raw.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO passkey_credentials (project_id, uid, credential_id, user_handle, public_key, alg,
                          sign_count, backup_eligible, backed_up, aaguid, name, attestation_format, created_at)
                        VALUES (?, ?, x'01', x'02', x'03', -7, 0, 0, 0, x'00', 'key', 'none', 0)
                        """, arguments: [h.projectID, uid])
            }
            for (table, exempt) in bookkeeping {
                let columns = try await raw.read { db in
                    try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { $0["name"] as String }
                }
                #expect(columns.count > exempt.count)
                for column in columns {
                    let before = try #require(h.store.changeStamp())
                    try await raw.write { db in
                        try db.execute(
                            sql: "UPDATE \(table) SET \(column) = \(column) WHERE project_id = ? AND uid = ?",
                            arguments: [h.projectID, uid])
                    }
                    let moved = try #require(h.store.changeStamp()) != before
                    #expect(moved == !exempt.contains(column), "\(table).\(column)")
                }
            }
            try raw.close()
        }
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

            // A sign-in's bookkeeping, by this server or by another process, moves none either: one user's sign-in
            // leaves every other user cached.
            h.clock.advance(120)
            let again = try await c.post("/v1/accounts:signInWithPassword", [
                "email": "cache@example.com", "password": "pass-word", "returnSecureToken": true,
            ])
            #expect(again.status == 200)
            #expect(try await c.refresh(try #require(again.string("refreshToken"))).status == 200)
            try await other.recordSignIn(projectID: h.projectID, uid: uid, at: Date())
            try await other.recordRefresh(projectID: h.projectID, uid: uid, at: Date())
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
