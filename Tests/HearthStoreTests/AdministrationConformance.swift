import Foundation
import HearthCore
import HearthStore
import Testing

/// The administration part of the `AuthStore` contract: paging, imports, resets, service-account keys,
/// project settings and per-session claims.
@Suite("AuthStore conformance: administration")
struct AdministrationConformance {
    @Test(arguments: Backend.available)
    func pagesUsersInUIDOrderWithTheirLinks(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            // Byte order, whatever the database collation: "B" < "a" < "b".
            for uid in ["b", "a", "B", "c"] {
                try await store.insertUser(
                    Fixture.user(
                        uid: uid, email: "\(uid.lowercased())\(uid)@x.com",
                        providers: [
                            ProviderUserInfo(providerID: "google.com", rawID: "g-\(uid)"),
                            ProviderUserInfo(providerID: "apple.com", rawID: "a-\(uid)"),
                        ]))
            }
            try await store.insertUser(Fixture.user(project: "p2", uid: "a0", email: nil))
            let first = try await store.users(projectID: "p1", afterUID: nil, limit: 2)
            #expect(first.map(\.uid) == ["B", "a"])
            #expect(first[0].providers.map(\.providerID) == ["apple.com", "google.com"])
            let rest = try await store.users(projectID: "p1", afterUID: "a", limit: 2)
            #expect(rest.map(\.uid) == ["b", "c"])
            #expect(try await store.users(projectID: "p1", afterUID: "c", limit: 2).isEmpty)
            #expect(rest[1] == (try await store.user(projectID: "p1", uid: "c")))
        }
    }

    @Test(arguments: Backend.available)
    func importsABatchReportingConflictsByIndex(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.insertUser(
                Fixture.user(
                    uid: "old", email: "old@x.com", phone: "+15550001",
                    providers: [
                        ProviderUserInfo(providerID: "google.com", rawID: "g-old")
                    ]))
            let batch = [
                Fixture.user(uid: "n1", email: "n1@x.com", providers: []),
                Fixture.user(uid: "old", email: "other@x.com", providers: []),  // uid taken
                Fixture.user(uid: "n2", email: "old@x.com", providers: []),  // e-mail taken
                Fixture.user(uid: "n3", email: nil, phone: "+15550001", providers: []),  // phone taken
                Fixture.user(
                    uid: "n4", email: nil, providers: [ProviderUserInfo(providerID: "google.com", rawID: "g-old")]),
                Fixture.user(uid: "n5", email: "n1@x.com", providers: []),  // taken earlier in this batch
            ]
            let failures = try await store.importUsers(batch, overwrite: false)
            #expect(
                failures == [
                    1: .uidExists, 2: .emailExists, 3: .phoneNumberExists, 4: .federatedIDExists, 5: .emailExists,
                ])
            #expect(try await store.user(projectID: "p1", uid: "n1") == batch[0])
            #expect(try await store.countUsers(projectID: "p1") == 2)
            #expect(try await store.user(projectID: "p1", uid: "old")?.email == "old@x.com")
        }
    }

    @Test(arguments: Backend.available)
    func importWithOverwriteReplacesTheUserAndTheirLinks(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.insertUser(
                Fixture.user(
                    uid: "u1", email: "ada@x.com",
                    providers: [
                        ProviderUserInfo(providerID: "google.com", rawID: "g-1")
                    ]))
            var replacement = Fixture.user(
                uid: "u1", email: "ada@x.com",
                providers: [
                    ProviderUserInfo(providerID: "apple.com", rawID: "a-1")
                ])
            replacement.displayName = "Imported"
            #expect(try await store.importUsers([replacement], overwrite: true).isEmpty)
            #expect(try await store.user(projectID: "p1", uid: "u1") == replacement)
            // The old link is gone, so another user may now take it.
            #expect(
                try await store.importUsers(
                    [
                        Fixture.user(
                            uid: "u2", email: nil, providers: [ProviderUserInfo(providerID: "google.com", rawID: "g-1")]
                        )
                    ],
                    overwrite: false
                ).isEmpty)
        }
    }

    /// Entries are decided in order, each as if those before it were written: an address an overwritten user gave
    /// up is free for the entries after it, not for those before.
    @Test(arguments: Backend.available)
    func anOverwriteFreesWhatTheOldUserHeldForLaterEntriesOnly(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.insertUser(Fixture.user(uid: "u1", email: "ada@x.com", phone: "+15550001", providers: []))
            let early = Fixture.user(uid: "u2", email: "ada@x.com", providers: [])
            let moved = Fixture.user(uid: "u1", email: "new@x.com", providers: [])
            let late = Fixture.user(uid: "u3", email: nil, phone: "+15550001", providers: [])
            #expect(try await store.importUsers([early, moved, late], overwrite: true) == [0: .emailExists])
            #expect(try await store.user(projectID: "p1", uid: "u1")?.email == "new@x.com")
            #expect(try await store.user(projectID: "p1", uid: "u3")?.phoneNumber == "+15550001")
            #expect(try await store.user(projectID: "p1", uid: "u2") == nil)
        }
    }

    @Test(arguments: Backend.available)
    func deletesAllUsersOfOneProjectWithTheirSessions(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            try await store.insertUser(Fixture.user(uid: "u1"))
            try await store.insertUser(Fixture.user(uid: "u2", email: "b@x.com", providers: []))
            try await store.insertUser(Fixture.user(project: "p2", uid: "u1"))
            try await store.insertRefreshFamily(Fixture.family("f1"), tokenHash: Fixture.hash("t1"))
            #expect(try await store.deleteAllUsers(projectID: "p1") == 2)
            #expect(try await store.countUsers(projectID: "p1") == 0)
            #expect(try await store.countUsers(projectID: "p2") == 1)
            #expect(try await store.rotateRefreshToken(Fixture.rotation("t1", to: "t2")) == .unknown)
        }
    }

    @Test(arguments: Backend.available)
    func keepsServiceAccountKeysAndRevokesThemOnce(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            let key = ServiceAccountKey(
                keyID: "k1", projectID: "p1", clientEmail: "admin@p1.iam.hearth.local", publicKey: [1, 2, 3],
                createdAt: Fixture.t0)
            try await store.insertServiceAccountKey(key)
            try await store.insertServiceAccountKey(
                ServiceAccountKey(
                    keyID: "k2", projectID: "p2", clientEmail: "b@p2", publicKey: [4], createdAt: Fixture.t(1)))
            #expect(try await store.serviceAccountKey(keyID: "k1") == key)
            #expect(try await store.serviceAccountKey(keyID: "nope") == nil)
            #expect(try await store.revokeServiceAccountKey(keyID: "k1", at: Fixture.t(5)))
            #expect(try await !store.revokeServiceAccountKey(keyID: "k1", at: Fixture.t(6)), "already revoked")
            #expect(try await store.serviceAccountKey(keyID: "k1")?.revokedAt == Fixture.t(5))
            #expect(try await store.serviceAccountKeys().map(\.keyID) == ["k1", "k2"])
        }
    }

    @Test(arguments: Backend.available)
    func savesProjectSettings(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            #expect(try await store.projectSettings(projectID: "p1") == nil)
            try await store.saveProjectSettings(projectID: "p1", settings: #"{"a":1}"#, at: Fixture.t0)
            try await store.saveProjectSettings(projectID: "p1", settings: #"{"a":2}"#, at: Fixture.t(1))
            #expect(try await openAnother().projectSettings(projectID: "p1") == #"{"a":2}"#)
            #expect(try await store.projectSettings(projectID: "p2") == nil)
        }
    }

    @Test(arguments: Backend.available)
    func listsAndDeletesATenantsSettingsByPrefix(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            for id in ["p1", "p1/tenants/b", "p1/tenants/a", "p10/tenants/x", "p1/tenantsX", "p2/tenants/a"] {
                try await store.saveProjectSettings(projectID: id, settings: #"{"id":"\#(id)"}"#, at: Fixture.t0)
            }
            let found = try await store.projectSettings(prefix: "p1/tenants/")
            #expect(found.map(\.projectID) == ["p1/tenants/a", "p1/tenants/b"])
            #expect(found.first?.settings == #"{"id":"p1/tenants/a"}"#)
            #expect(try await store.deleteProjectSettings(projectID: "p1/tenants/a"))
            #expect(try await !store.deleteProjectSettings(projectID: "p1/tenants/a"))
            #expect(try await store.projectSettings(prefix: "p1/tenants/").map(\.projectID) == ["p1/tenants/b"])
        }
    }

    /// Clients refresh without naming a tenant: a token of one of the project's tenants rotates under the project,
    /// but not under another project whose id merely starts the same way.
    @Test(arguments: Backend.available)
    func aTenantsRefreshTokenRotatesUnderItsProject(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var family = Fixture.family("f1")
            family.projectID = "p1/tenants/acme"
            try await store.insertRefreshFamily(family, tokenHash: Fixture.hash("t1"))
            #expect(try await store.rotateRefreshToken(Fixture.rotation("t1", to: "t2", project: "p")) == .unknown)
            #expect(try await store.rotateRefreshToken(Fixture.rotation("t1", to: "t2", project: "p1/tenants/other")) == .unknown)
            guard case .rotated(let rotated) = try await store.rotateRefreshToken(Fixture.rotation("t1", to: "t2"))
            else { Issue.record("not rotated"); return }
            #expect(rotated.projectID == "p1/tenants/acme")
        }
    }

    @Test(arguments: Backend.available)
    func keepsASessionsExtraClaimsThroughRotation(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var family = Fixture.family("f1")
            family.extraClaims = #"{"premium":true}"#
            try await store.insertRefreshFamily(family, tokenHash: Fixture.hash("t1"))
            guard case .rotated(let rotated) = try await store.rotateRefreshToken(Fixture.rotation("t1", to: "t2"))
            else {
                Issue.record("not rotated")
                return
            }
            #expect(rotated.extraClaims == #"{"premium":true}"#)
        }
    }

    @Test(arguments: Backend.available)
    func emailActionCodesAreUsedOnceAndExpire(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            let code = EmailActionCode(
                codeHash: Fixture.hash("c1"), projectID: "p1", kind: .passwordReset, email: "ada@x.com",
                createdAt: Fixture.t0, expiresAt: Fixture.t(3600))
            try await store.insertEmailActionCode(code)
            #expect(
                try await store.emailActionCode(hash: Fixture.hash("c1"), projectID: "p1", now: Fixture.t(1)) == code)
            #expect(
                try await store.emailActionCode(hash: Fixture.hash("c1"), projectID: "p2", now: Fixture.t(1)) == nil)
            #expect(
                try await store.emailActionCode(hash: Fixture.hash("c1"), projectID: "p1", now: Fixture.t(3600)) == nil)
            let revert = EmailActionCode(
                codeHash: Fixture.hash("c2"), projectID: "p1", kind: .revertSecondFactorAddition, email: "ada@x.com",
                mfaEnrollmentID: "enrollment-1", createdAt: Fixture.t0, expiresAt: Fixture.t(3600))
            try await store.insertEmailActionCode(revert)
            #expect(
                try await store.consumeEmailActionCode(hash: Fixture.hash("c2"), projectID: "p1", now: Fixture.t(1))
                    == revert, "the enrollment a revert code removes comes back")

            let stores = [store, try await openAnother()]
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        try await stores[i % 2].consumeEmailActionCode(
                            hash: Fixture.hash("c1"), projectID: "p1", now: Fixture.t(2)) != nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)

            let message = EmailOutboxMessage(
                projectID: "p1", email: "ada@x.com", kind: .verifyEmail, oobCode: "c2",
                oobLink: "https://x/?oobCode=c2",
                sentAt: Fixture.t0)
            try await store.appendEmailOutbox(message)
            #expect(try await store.emailOutbox(projectID: "p1") == [message])
            #expect(try await store.emailOutbox(projectID: "p2").isEmpty)
        }
    }
}
