import Foundation
import HearthCore
import HearthStore
import Testing

/// The store's part of browser sign-in on every backend: a pending authorization is found by its state hash until
/// it expires, and is used once even when two servers race for it.
@Suite("AuthStore conformance: browser sign-in")
struct BrowserSignInConformance {
    static func pending(_ state: String, expiresAt: Date = Fixture.t(600)) -> PendingAuthorization {
        PendingAuthorization(
            stateHash: Fixture.hash(state), projectID: "p1/tenants/t1", providerID: "github.com",
            sessionHash: String(repeating: "ab", count: 32), redirectURL: "hearth-p1://firebaseauth/link",
            callbackURL: "https://auth.example.com/__/auth/handler", sealedVerifier: [1, 2, 3, 4],
            nonce: state == "s2" ? "n-2" : nil, createdAt: Fixture.t0, expiresAt: expiresAt)
    }

    @Test(arguments: Backend.available)
    func pendingAuthorizationsAreUsedOnceAndExpire(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            let first = Self.pending("s1")
            let second = Self.pending("s2")
            try await store.insertPendingAuthorization(first)
            try await store.insertPendingAuthorization(second)
            #expect(try await store.pendingAuthorization(stateHash: Fixture.hash("s1"), now: Fixture.t(1)) == first)
            #expect(try await store.pendingAuthorization(stateHash: Fixture.hash("s2"), now: Fixture.t(1)) == second)
            #expect(try await store.pendingAuthorization(stateHash: Fixture.hash("s3"), now: Fixture.t(1)) == nil)
            #expect(try await store.pendingAuthorization(stateHash: Fixture.hash("s1"), now: Fixture.t(600)) == nil)
            #expect(
                try await store.consumePendingAuthorization(stateHash: Fixture.hash("s2"), now: Fixture.t(600)) == nil)

            // Of concurrent uses, across two store instances, exactly one gets it.
            let stores = [store, try await openAnother()]
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        try await stores[i % 2].consumePendingAuthorization(
                            stateHash: Fixture.hash("s1"), now: Fixture.t(2)) != nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
            #expect(try await store.pendingAuthorization(stateHash: Fixture.hash("s1"), now: Fixture.t(3)) == nil)

            // A later insert forgets expired requests.
            try await store.insertPendingAuthorization(
                PendingAuthorization(
                    stateHash: Fixture.hash("s4"), projectID: "p1", providerID: "oidc.x", sessionHash: "00",
                    redirectURL: "hearth-p1://firebaseauth/link", callbackURL: "http://h/__/auth/handler",
                    sealedVerifier: [9], nonce: "n", createdAt: Fixture.t(700), expiresAt: Fixture.t(1300)))
            #expect(try await store.pendingAuthorization(stateHash: Fixture.hash("s4"), now: Fixture.t(701)) != nil)
        }
    }
}
