import Foundation
import HearthAuth
import Testing

/// `useUserAccessGroup` and `getStoredUser(forAccessGroup:)` with the Linux file store: an app and its
/// extension are two apps (two processes, in life) configured with the same store directory.
@Suite("Access groups")
struct AccessGroupTests {
    static let group = "TEAMID.com.example.shared"

    @Test func anAppAndItsExtensionShareTheUserOfAGroup() async throws {
        let server = try await TestServer()
        let storeDirectory = server.directory.appendingPathComponent("store")
        let app = server.makeAuth(store: FileUserStore(directory: storeDirectory))
        try app.useUserAccessGroup(Self.group)
        #expect(app.userAccessGroup == Self.group)
        let user = try await app.createUser(withEmail: uniqueEmail(), password: "shared secret").user

        // The extension: its own app name (its own bundle), the same directory and API key.
        let appExtension = server.makeAuth(store: FileUserStore(directory: storeDirectory))
        #expect(appExtension.currentUser == nil)
        let stored = try #require(try appExtension.getStoredUser(forAccessGroup: Self.group))
        #expect(stored.uid == user.uid)
        #expect(appExtension.currentUser == nil)  // reading does not switch

        try appExtension.useUserAccessGroup(Self.group)
        let shared = try #require(appExtension.currentUser)
        #expect(shared.uid == user.uid)
        _ = try await shared.getIDToken(forcingRefresh: true)  // the shared tokens work

        // The group's file is the user's alone, as every stored user is.
        let groupDirectory = storeDirectory.appendingPathComponent("AccessGroups/\(Self.group)")
        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: groupDirectory, includingPropertiesForKeys: nil).first)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)

        // Signing out in one process empties the group for the other.
        try appExtension.signOut()
        #expect(try app.getStoredUser(forAccessGroup: Self.group) == nil)
    }

    /// Refresh tokens rotate, and a rotated one presented again ends the session (here at once: no grace).
    /// The app and its extension each hold the user in memory; each must continue from the other's rotation.
    @Test func theAppAndItsExtensionKeepRefreshingAfterEachOthersRotation() async throws {
        let server = try await TestServer(tokens: ["refreshReuseGraceSeconds": 0])
        let storeDirectory = server.directory.appendingPathComponent("store")
        let app = server.makeAuth(store: FileUserStore(directory: storeDirectory))
        try app.useUserAccessGroup(Self.group)
        let inApp = try await app.createUser(withEmail: uniqueEmail(), password: "shared secret").user
        let appExtension = server.makeAuth(store: FileUserStore(directory: storeDirectory))
        try appExtension.useUserAccessGroup(Self.group)
        let inExtension = try #require(appExtension.currentUser)

        for _ in 0..<2 {
            _ = try await inApp.getIDToken(forcingRefresh: true)
            _ = try await inExtension.getIDToken(forcingRefresh: true)
        }
        #expect(app.currentUser?.uid == inApp.uid)
        #expect(appExtension.currentUser?.uid == inApp.uid)
        // Each refresh continued from the other's rotation, so the session is still whole.
        _ = try await inApp.getIDToken(forcingRefresh: true)
        #expect(app.currentUser != nil && appExtension.currentUser != nil)
    }

    @Test func movingIntoAGroupLeavesTheAppsOwnUserBehind() async throws {
        let server = try await TestServer()
        let storeDirectory = server.directory.appendingPathComponent("store")
        let auth = server.makeAuth(store: FileUserStore(directory: storeDirectory))
        let own = try await auth.createUser(withEmail: uniqueEmail(), password: "own secret").user
        #expect(try auth.getStoredUser(forAccessGroup: nil)?.uid == own.uid)

        // As in FirebaseAuth: the group's user (none yet) becomes current, the app's own copy is removed.
        try auth.useUserAccessGroup(Self.group)
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: nil) == nil)

        let grouped = try await auth.signIn(withEmail: own.email!, password: "own secret").user
        try auth.useUserAccessGroup(nil)
        #expect(auth.userAccessGroup == nil)
        #expect(auth.currentUser == nil)
        #expect(try auth.getStoredUser(forAccessGroup: Self.group)?.uid == grouped.uid)
    }

    @Test func aStoreThatCannotShareRefusesAGroup() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth(store: InMemoryUserStore())
        let error = #expect(throws: NSError.self) { try auth.useUserAccessGroup(Self.group) }
        #expect(error?.code == AuthErrorCode.keychainError.rawValue)
        #expect(auth.userAccessGroup == nil)
    }
}
