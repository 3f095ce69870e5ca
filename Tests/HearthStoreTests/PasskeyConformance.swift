import Foundation
import GRDB
import HearthCore
import HearthStore
import Testing

@testable import HearthSQLite

/// The store's part of passkeys, on every backend: credentials kept with their user (unique per project or tenant,
/// gone with the user, counters moved without a version bump and never undone by an update), and challenges
/// claimed once.
@Suite("AuthStore conformance: passkeys")
struct PasskeyConformance {
    static func passkey(_ id: String, signCount: UInt32 = 0, at seconds: Int = 0) -> PasskeyCredential {
        PasskeyCredential(
            credentialID: Array(id.utf8), userHandle: Array(repeating: 1, count: 32), publicKey: [0xA5],
            algorithm: -7, signCount: signCount, aaguid: Array(repeating: 0, count: 16), name: id,
            attestationFormat: "none", createdAt: Fixture.t(seconds))
    }

    @Test(arguments: Backend.available)
    func aCredentialIDBelongsToOneUserPerScope(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var ada = Fixture.user()
            ada.passkeys = [Self.passkey("k1")]
            try await store.insertUser(ada)
            var bob = Fixture.user(uid: "u2", email: "bob@example.com", providers: [])
            bob.passkeys = [Self.passkey("k1")]
            await #expect(throws: StoreError.passkeyExists) { try await store.insertUser(bob) }
            bob.passkeys = []
            try await store.insertUser(bob)
            var stored = try #require(try await store.user(projectID: "p1", uid: "u2"))
            stored.passkeys = [Self.passkey("k1")]
            await #expect(throws: StoreError.passkeyExists) { try await store.updateUser(stored) }
            var carol = Fixture.user(uid: "u3", email: "carol@example.com", providers: [])
            carol.passkeys = [Self.passkey("k1")]
            #expect(try await store.importUsers([carol], overwrite: false) == [0: .passkeyExists])
            #expect(try await store.user(projectID: "p1", passkeyCredentialID: Array("k1".utf8))?.uid == "u1")

            // Another scope (a tenant) has its own credential ids.
            var tenantUser = Fixture.user(project: "p1/tenants/t1")
            tenantUser.passkeys = [Self.passkey("k1")]
            try await store.insertUser(tenantUser)
            #expect(try await store.user(projectID: "p1/tenants/t1", passkeyCredentialID: Array("k1".utf8)) != nil)

            // Deleting the user deletes its credentials: the id is free again and leads nowhere.
            #expect(try await store.deleteUser(projectID: "p1", uid: "u1"))
            #expect(try await store.user(projectID: "p1", passkeyCredentialID: Array("k1".utf8)) == nil)
            stored = try #require(try await store.user(projectID: "p1", uid: "u2"))
            stored.passkeys = [Self.passkey("k1")]
            try await store.updateUser(stored)
            #expect(try await store.user(projectID: "p1", passkeyCredentialID: Array("k1".utf8))?.uid == "u2")
        }
    }

    @Test(arguments: Backend.available)
    func aSignInMovesTheCounterWhichAnUpdateDoesNotUndo(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var ada = Fixture.user()
            ada.passkeys = [Self.passkey("k1", signCount: 3), Self.passkey("k2", at: 1)]
            try await store.insertUser(ada)
            let read = try #require(try await store.user(projectID: "p1", uid: "u1"))
            #expect(
                try await store.recordPasskeyUse(
                    projectID: "p1", uid: "u1", credentialID: Array("k1".utf8), signCount: 9, backupEligible: true,
                    backedUp: true, at: Fixture.t(60)))
            // A lower counter (a racing sign-in answered later) does not move it back.
            #expect(
                try await store.recordPasskeyUse(
                    projectID: "p1", uid: "u1", credentialID: Array("k1".utf8), signCount: 4, backupEligible: true,
                    backedUp: false, at: Fixture.t(61)))
            #expect(
                try await !store.recordPasskeyUse(
                    projectID: "p1", uid: "u2", credentialID: Array("k1".utf8), signCount: 10, backupEligible: false,
                    backedUp: false, at: Fixture.t(62)))
            var after = try #require(try await store.user(projectID: "p1", uid: "u1"))
            #expect(after.version == read.version)
            #expect(after.passkeys.map(\.signCount) == [9, 0])
            #expect(after.passkeys[0].backupEligible && !after.passkeys[0].backedUp)
            #expect(after.passkeys[0].lastUsedAt == Fixture.t(61))

            // An update made from the earlier read removes k2 and leaves k1's counter as the sign-in left it.
            var update = read
            update.passkeys.removeLast()
            try await store.updateUser(update)
            after = try #require(try await store.user(projectID: "p1", uid: "u1"))
            #expect(after.passkeys.map(\.signCount) == [9])
        }
    }

    /// Keys begin with the time of issue, so issuing a challenge forgets those expired before it, a range of keys:
    /// a lifetime later the first is gone from the table even for a reader whose clock says it is still live.
    @Test(arguments: Backend.available)
    func issuingAChallengeForgetsTheExpiredRangeOfKeys(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            func challenge(_ name: String, at seconds: Int) -> PasskeyChallenge {
                let issued = Fixture.t(seconds)
                return PasskeyChallenge(
                    challengeHash: PasskeyChallenge.keyPrefix(issuedAt: issued) + Fixture.hash(name), projectID: "p1",
                    purpose: .signIn, createdAt: issued,
                    expiresAt: issued.addingTimeInterval(PasskeyChallenge.lifetime))
            }
            let first = challenge("first", at: 0)
            let second = challenge("second", at: 100)
            try await store.insertPasskeyChallenge(first)
            try await store.insertPasskeyChallenge(second)
            try await store.insertPasskeyChallenge(challenge("third", at: 301))
            #expect(
                try await store.passkeyChallenge(hash: first.challengeHash, projectID: "p1", now: Fixture.t(1)) == nil)
            #expect(
                try await store.passkeyChallenge(hash: second.challengeHash, projectID: "p1", now: Fixture.t(301))
                    == second)
        }
    }

    @Test func challengeKeysSortByTheTimeOfIssue() {
        let earlier = PasskeyChallenge.keyPrefix(issuedAt: Fixture.t0)
        let later = PasskeyChallenge.keyPrefix(issuedAt: Fixture.t0.addingTimeInterval(0.001))
        let muchLater = PasskeyChallenge.keyPrefix(issuedAt: Fixture.t0.addingTimeInterval(86_400 * 365))
        #expect(earlier.count == 8)
        #expect(earlier.lexicographicallyPrecedes(later))
        #expect(later.lexicographicallyPrecedes(muchLater))
        #expect(PasskeyChallenge.expiredKeysEnd(at: Fixture.t(300)) == PasskeyChallenge.keyPrefix(issuedAt: Fixture.t0))
    }

    @Test(arguments: Backend.available)
    func aChallengeIsClaimedOnceInItsScopeBeforeItExpires(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            let enrol = PasskeyChallenge(
                challengeHash: Fixture.hash("c1"), projectID: "p1", purpose: .enrollment, uid: "u1",
                userHandle: Array(repeating: 9, count: 32), createdAt: Fixture.t0, expiresAt: Fixture.t(300))
            let signIn = PasskeyChallenge(
                challengeHash: Fixture.hash("c2"), projectID: "p1", purpose: .signIn, createdAt: Fixture.t0,
                expiresAt: Fixture.t(300))
            try await store.insertPasskeyChallenge(enrol)
            try await store.insertPasskeyChallenge(signIn)
            #expect(
                try await store.consumePasskeyChallenge(hash: Fixture.hash("c1"), projectID: "p2", now: Fixture.t(1))
                    == nil)
            #expect(
                try await store.consumePasskeyChallenge(hash: Fixture.hash("c1"), projectID: "p1", now: Fixture.t(1))
                    == enrol)
            #expect(
                try await store.consumePasskeyChallenge(hash: Fixture.hash("c1"), projectID: "p1", now: Fixture.t(2))
                    == nil)
            #expect(
                try await store.consumePasskeyChallenge(hash: Fixture.hash("c2"), projectID: "p1", now: Fixture.t(300))
                    == nil)

            // The same challenge claimed through two stores on one database at once: one gets it.
            let other = try await openAnother()
            for round in 0..<20 {
                let hash = Fixture.hash("race-\(round)")
                try await store.insertPasskeyChallenge(
                    PasskeyChallenge(
                        challengeHash: hash, projectID: "p1", purpose: .signIn, createdAt: Fixture.t0,
                        expiresAt: Fixture.t(300)))
                async let a = store.consumePasskeyChallenge(hash: hash, projectID: "p1", now: Fixture.t(1))
                async let b = other.consumePasskeyChallenge(hash: hash, projectID: "p1", now: Fixture.t(1))
                let claims = [try await a, try await b].compactMap { $0 }
                #expect(claims.count == 1)
            }
        }
    }

    /// A sign-in's writes: all of them, once, by whoever takes its live `sign_in` challenge; none otherwise, and none
    /// when one of them fails.
    @Test(arguments: Backend.available)
    func aPasskeySignInWritesEverythingOnceOrNothing(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            var ada = Fixture.user()
            ada.passkeys = [Self.passkey("k1", signCount: 3)]
            try await store.insertUser(ada)
            let read = try #require(try await store.user(projectID: "p1", uid: "u1"))
            func challenge(_ name: String, _ purpose: PasskeyChallenge.Purpose = .signIn) async throws -> [UInt8] {
                try await store.insertPasskeyChallenge(
                    PasskeyChallenge(
                        challengeHash: Fixture.hash(name), projectID: "p1", purpose: purpose, createdAt: Fixture.t0,
                        expiresAt: Fixture.t(300)))
                return Fixture.hash(name)
            }
            func signIn(_ hash: [UInt8], count: UInt32, family: String?, at seconds: Int = 10) -> PasskeySignIn {
                PasskeySignIn(
                    challengeHash: hash, projectID: "p1", uid: "u1", credentialID: Array("k1".utf8), signCount: count,
                    backupEligible: true, backedUp: true,
                    session: family.map { .init(family: Fixture.family($0), tokenHash: Fixture.hash("rt-\($0)")) },
                    at: Fixture.t(seconds))
            }
            func sessions() async throws -> [String] {
                try await store.sessions(projectID: "p1", uid: "u1").map(\.sessionID)
            }

            // Looking at a challenge does not take it; another scope's is not found.
            let c1 = try await challenge("c1")
            #expect(try await store.passkeyChallenge(hash: c1, projectID: "p2", now: Fixture.t(1)) == nil)
            #expect(try await store.passkeyChallenge(hash: c1, projectID: "p1", now: Fixture.t(1))?.purpose == .signIn)
            #expect(try await store.passkeyChallenge(hash: c1, projectID: "p1", now: Fixture.t(1)) != nil)
            #expect(try await store.passkeyChallenge(hash: c1, projectID: "p1", now: Fixture.t(300)) == nil)

            #expect(try await store.recordPasskeySignIn(signIn(c1, count: 9, family: "f1")))
            var after = try #require(try await store.user(projectID: "p1", uid: "u1"))
            // What the engine's user cache keeps instead of reading the user again.
            #expect(after == signIn(c1, count: 9, family: "f1").applied(to: read))
            #expect(after.version == read.version)
            #expect(after.passkeys.map(\.signCount) == [9])
            #expect(after.passkeys[0].lastUsedAt == Fixture.t(10) && after.passkeys[0].backedUp)
            #expect(after.lastLoginAt == Fixture.t(10) && after.lastRefreshAt == Fixture.t(10))
            #expect(try await sessions() == ["f1"])
            #expect(try await store.passkeyChallenge(hash: c1, projectID: "p1", now: Fixture.t(1)) == nil)

            // Taken, expired, unknown or an enrolment's: nothing written.
            let expired = try await challenge("expired")
            let enrolment = try await challenge("enrol", .enrollment)
            for hash in [c1, expired, Fixture.hash("unknown"), enrolment] {
                let at = hash == expired ? 300 : 20
                #expect(try await !store.recordPasskeySignIn(signIn(hash, count: 12, family: "f2", at: at)))
            }
            after = try #require(try await store.user(projectID: "p1", uid: "u1"))
            #expect(after.passkeys.map(\.signCount) == [9] && after.lastLoginAt == Fixture.t(10))
            #expect(try await sessions() == ["f1"])

            // A verified assertion whose sign-in was refused: the challenge and the counter, no session; a lower
            // counter (a racing sign-in answered later) does not move it back.
            let before = after
            let refused = [
                signIn(try await challenge("c2"), count: 11, family: nil),
                signIn(try await challenge("c3"), count: 4, family: nil, at: 30),
            ]
            for write in refused { #expect(try await store.recordPasskeySignIn(write)) }
            after = try #require(try await store.user(projectID: "p1", uid: "u1"))
            #expect(after == refused[1].applied(to: refused[0].applied(to: before)))
            #expect(after.passkeys.map(\.signCount) == [11] && after.passkeys[0].lastUsedAt == Fixture.t(30))
            #expect(after.lastLoginAt == Fixture.t(10))
            #expect(try await sessions() == ["f1"])

            // A write that fails (a family id already taken) leaves the challenge live and the counter as it was.
            let c4 = try await challenge("c4")
            await #expect(throws: (any Error).self) {
                try await store.recordPasskeySignIn(signIn(c4, count: 20, family: "f1", at: 40))
            }
            #expect(try await store.passkeyChallenge(hash: c4, projectID: "p1", now: Fixture.t(41)) != nil)
            after = try #require(try await store.user(projectID: "p1", uid: "u1"))
            #expect(after.passkeys.map(\.signCount) == [11] && after.lastLoginAt == Fixture.t(10))

            // One challenge, two stores on one database at once: one sign-in.
            let other = try await openAnother()
            for round in 0..<20 {
                let hash = try await challenge("race-\(round)")
                async let a = store.recordPasskeySignIn(signIn(hash, count: 0, family: "a\(round)"))
                async let b = other.recordPasskeySignIn(signIn(hash, count: 0, family: "b\(round)"))
                #expect([try await a, try await b].filter { $0 }.count == 1)
            }
            #expect(try await sessions().count == 21)
        }
    }

    /// Every SQLite user read (one user, a listing, a console search page) selects the user's links and passkeys
    /// through their `(project_id, uid)` indexes: a probe of a primary key by project alone would read every link or
    /// passkey of the project for each user.
    @Test func sqliteReadsAUsersLinksAndPasskeysByTheirIndexes() async throws {
        try await withTestDatabase(.sqlite) { database in
            let store = try await database.open() as! SQLiteAuthStore
            let one = "SELECT \(SQLiteUserRow.columns) FROM users u \(SQLiteUserRow.joinLinks) WHERE u.project_id = ? AND u.uid = ?"
            let search = SQLiteAuthStore.searchStatement(projectID: "p1", UserSearch(field: .email, prefix: "a"), limit: 50)
            for (sql, arguments) in [(one, ["p1", "u1"] as StatementArguments), search] {
                let plan = try await store.queryPlan(sql, arguments)
                #expect(plan.contains("SEARCH p USING INDEX passkey_credentials_user (project_id=? AND uid=?)"), "\(plan)")
                #expect(plan.contains("SEARCH l USING INDEX provider_links_user (project_id=? AND uid=?) LEFT-JOIN"), "\(plan)")
            }
            try await store.shutdown()
        }
    }
}
