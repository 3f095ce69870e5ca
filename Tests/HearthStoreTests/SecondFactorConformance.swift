import Foundation
import HearthCore
import HearthStore
import Testing

/// The store's part of multi-factor authentication, on every backend: enrollments kept with the user under the
/// version check, the second factor carried by a session, and pending steps used once.
@Suite("AuthStore conformance: second factors")
struct SecondFactorConformance {
    static let phone = MFAEnrollment(
        id: "e1", displayName: "work", enrolledAt: Fixture.t0, factor: .phone("+16505550101"))
    static let totp = MFAEnrollment(
        id: "e2", displayName: nil, enrolledAt: Fixture.t(5), factor: .totp(storedSecret: "kek:c2VhbGVk"))

    @Test(arguments: Backend.available)
    func enrollmentsAreUserDataUnderTheVersionCheck(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var user = Fixture.user()
            user.mfaEnrollments = [Self.phone]
            try await store.insertUser(user)
            #expect(try await store.user(projectID: "p1", uid: "u1")?.mfaEnrollments == [Self.phone])

            var updated = try #require(try await store.user(projectID: "p1", uid: "u1"))
            updated.mfaEnrollments.append(Self.totp)
            try await store.updateUser(updated)
            #expect(
                try await store.user(projectID: "p1", email: "ada@example.com")?.mfaEnrollments == [
                    Self.phone, Self.totp,
                ])
            // An update based on the old version cannot undo the enrollment.
            var stale = user
            stale.mfaEnrollments = []
            await #expect(throws: StoreError.versionConflict) { try await store.updateUser(stale) }

            let page = try await store.users(projectID: "p1", afterUID: nil, limit: 10)
            #expect(page.first?.mfaEnrollments == [Self.phone, Self.totp])
            var cleared = try #require(try await store.user(projectID: "p1", uid: "u1"))
            cleared.mfaEnrollments = []
            try await store.updateUser(cleared)
            #expect(try await store.user(projectID: "p1", uid: "u1")?.mfaEnrollments == [])
        }
    }

    @Test(arguments: Backend.available)
    func aSessionKeepsItsSecondFactorThroughRotation(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            var family = Fixture.family("f1")
            family.secondFactor = SecondFactorClaim(factorID: "totp", enrollmentID: "e2")
            try await store.insertRefreshFamily(family, tokenHash: Fixture.hash("t1"))
            try await store.insertRefreshFamily(Fixture.family("f2"), tokenHash: Fixture.hash("u1"))
            guard case .rotated(let rotated) = try await store.rotateRefreshToken(Fixture.rotation("t1", to: "t2")),
                case .rotated(let plain) = try await store.rotateRefreshToken(Fixture.rotation("u1", to: "u2", family: "f2"))
            else {
                Issue.record("not rotated")
                return
            }
            #expect(rotated.secondFactor == SecondFactorClaim(factorID: "totp", enrollmentID: "e2"))
            #expect(plain.secondFactor == nil)
        }
    }

    @Test(arguments: Backend.available)
    func pendingSecondFactorsAreUsedOnceAndExpire(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, openAnother in
            let pending = PendingSecondFactor(
                credentialHash: Fixture.hash("p1"), projectID: "p1", uid: "u1", purpose: .signIn,
                firstFactor: "password", createdAt: Fixture.t0, expiresAt: Fixture.t(600))
            let enrollment = PendingSecondFactor(
                credentialHash: Fixture.hash("p2"), projectID: "p1", uid: "u1", purpose: .totpEnrollment,
                firstFactor: "google.com", totpSecret: "b32:ABC", createdAt: Fixture.t0, expiresAt: Fixture.t(600))
            try await store.insertPendingSecondFactor(pending)
            try await store.insertPendingSecondFactor(enrollment)
            #expect(
                try await store.pendingSecondFactor(hash: Fixture.hash("p1"), projectID: "p1", now: Fixture.t(1))
                    == pending)
            #expect(
                try await store.pendingSecondFactor(hash: Fixture.hash("p2"), projectID: "p1", now: Fixture.t(1))
                    == enrollment)
            #expect(
                try await store.pendingSecondFactor(hash: Fixture.hash("p1"), projectID: "p2", now: Fixture.t(1)) == nil
            )
            #expect(
                try await store.pendingSecondFactor(hash: Fixture.hash("p1"), projectID: "p1", now: Fixture.t(600))
                    == nil)
            #expect(
                try await store.consumePendingSecondFactor(
                    hash: Fixture.hash("p2"), projectID: "p1", now: Fixture.t(600)) == nil)

            // Of concurrent uses, across two store instances, exactly one gets it.
            let stores = [store, try await openAnother()]
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        try await stores[i % 2].consumePendingSecondFactor(
                            hash: Fixture.hash("p1"), projectID: "p1", now: Fixture.t(2)) != nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
            #expect(
                try await store.pendingSecondFactor(hash: Fixture.hash("p1"), projectID: "p1", now: Fixture.t(3)) == nil
            )
        }
    }
}
