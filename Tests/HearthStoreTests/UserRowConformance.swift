import Foundation
import HearthCore
import HearthStore
import Testing

/// Every stored field of a user, each set to a value no other field has, survives every way into the store and
/// every way out: the guard on the one row description per backend (a column bound or read in the wrong place, or
/// left out of one path, shows here).
@Suite("AuthStore conformance: the user row")
struct UserRowConformance {
    static func everyField(uid: String = "u1", version: Int64 = 1) -> UserRecord {
        var user = UserRecord(
            projectID: "p1", uid: uid, email: "\(uid)@example.com", emailVerified: true, displayName: "Ada \(uid)",
            photoURL: "https://example.com/\(uid).png", phoneNumber: "+1650555\(uid.count)000",
            passwordHash: "hash-\(uid)", passwordUpdatedAt: Fixture.t(1), validSince: Fixture.t(2), disabled: true,
            createdAt: Fixture.t(3), lastLoginAt: Fixture.t(4), lastRefreshAt: Fixture.t(5),
            customClaims: #"{"role":"\#(uid)"}"#, customAuth: true,
            providers: [
                ProviderUserInfo(
                    providerID: "apple.com", rawID: "apple-\(uid)", federatedID: "fed-\(uid)",
                    email: "\(uid)@privaterelay.appleid.com", displayName: "Apple \(uid)",
                    photoURL: "https://apple.example/\(uid)", phoneNumber: "+1650555\(uid.count)111",
                    isPrivateEmail: true),
                ProviderUserInfo(providerID: "google.com", rawID: "google-\(uid)"),
            ],
            mfaEnrollments: [SecondFactorConformance.phone, SecondFactorConformance.totp], version: version)
        user.emailLinkSignIn = true
        user.initialEmail = "first-\(uid)@example.com"
        user.screenName = "screen_\(uid)"
        user.passkeys = [
            PasskeyCredential(
                credentialID: Array("cred-\(uid)".utf8), userHandle: Array(repeating: 7, count: 32),
                publicKey: [0xA5, 0x01, 0x02], algorithm: -7, signCount: 5, backupEligible: true, backedUp: true,
                aaguid: Array(repeating: 0xAB, count: 16), name: "Phone \(uid)", attestationFormat: "packed",
                createdAt: Fixture.t(6), lastUsedAt: Fixture.t(7)),
            PasskeyCredential(
                credentialID: [0, 0xFF, 0x10] + Array(uid.utf8), userHandle: Array(repeating: 7, count: 32),
                publicKey: [0xA4], algorithm: -257, signCount: 0, aaguid: Array(repeating: 0, count: 16),
                name: "Key \(uid)", attestationFormat: "none", createdAt: Fixture.t(8)),
        ]
        return user
    }

    /// Every read of one user the store offers.
    static func reads(_ store: any AuthStore, _ user: UserRecord) async throws -> [UserRecord?] {
        [
            try await store.user(projectID: "p1", uid: user.uid),
            try await store.user(projectID: "p1", email: user.email!),
            try await store.user(projectID: "p1", phoneNumber: user.phoneNumber!),
            try await store.user(projectID: "p1", providerID: "apple.com", rawID: "apple-\(user.uid)"),
            try await store.user(projectID: "p1", providerEmail: "\(user.uid)@privaterelay.appleid.com"),
            try await store.users(projectID: "p1", afterUID: nil, limit: 10).first { $0.uid == user.uid },
            try await store.user(projectID: "p1", passkeyCredentialID: Array("cred-\(user.uid)".utf8)),
        ]
    }

    @Test(arguments: Backend.available)
    func everyFieldSurvivesInsertUpdateAndImport(_ backend: Backend) async throws {
        try await withFreshStore(backend) { store, _ in
            let inserted = Self.everyField()
            try await store.insertUser(inserted)
            for read in try await Self.reads(store, inserted) { #expect(read == inserted) }

            var updated = Self.everyField(uid: "u1")
            updated.email = "changed@example.com"
            updated.emailVerified = false
            updated.displayName = "Changed"
            updated.screenName = "changed_screen"
            updated.initialEmail = nil
            updated.emailLinkSignIn = false
            updated.mfaEnrollments = [SecondFactorConformance.totp]
            updated.providers.removeLast()
            updated.passkeys.removeLast()
            try await store.updateUser(updated)
            updated.version += 1
            for read in try await Self.reads(store, updated) { #expect(read == updated) }

            let imported = Self.everyField(uid: "imported", version: 7)
            #expect(try await store.importUsers([imported], overwrite: false).isEmpty)
            for read in try await Self.reads(store, imported) { #expect(read == imported) }
            let overwritten = Self.everyField(uid: "u1", version: 9)
            #expect(try await store.importUsers([overwritten], overwrite: true).isEmpty)
            for read in try await Self.reads(store, overwritten) { #expect(read == overwritten) }
        }
    }
}
