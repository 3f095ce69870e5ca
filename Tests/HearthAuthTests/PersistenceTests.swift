import Foundation
import HearthAuth
import Testing

@Suite("Persistence")
struct PersistenceTests {
    @Test func theSignedInUserSurvivesARestart() async throws {
        let server = try await TestServer()
        let storeDirectory = server.directory.appendingPathComponent("store")
        let name = "restart-\(UUID().uuidString)"
        let auth = server.makeAuth(name: name, store: FileUserStore(directory: storeDirectory))
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "still here").user
        // A refresh rotates the refresh token; the rotated one is what must be on disk.
        _ = try await user.getIDToken(forcingRefresh: true)
        let latestRefreshToken = user.refreshToken

        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: storeDirectory, includingPropertiesForKeys: nil).first)
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        // A new process: a new app object and Auth reading the same store.
        HearthApp.app(name: name)?.delete()
        let restarted = server.makeAuth(name: name, store: FileUserStore(directory: storeDirectory))
        #expect(restarted !== auth)
        let restored = try #require(restarted.currentUser)
        #expect(restored.uid == user.uid)
        #expect(restored.email == user.email)
        #expect(restored.refreshToken == latestRefreshToken)
        _ = try await restored.getIDToken(forcingRefresh: true)

        try restarted.signOut()
        HearthApp.app(name: name)?.delete()
        #expect(server.makeAuth(name: name, store: FileUserStore(directory: storeDirectory)).currentUser == nil)
    }

    @Test func aCorruptStoreSignsOutCleanly() async throws {
        let server = try await TestServer()
        let storeDirectory = server.directory.appendingPathComponent("store")
        let name = "corrupt-\(UUID().uuidString)"
        _ = try await server.makeAuth(name: name, store: FileUserStore(directory: storeDirectory)).signInAnonymously()
        let file = try #require(
            try FileManager.default.contentsOfDirectory(at: storeDirectory, includingPropertiesForKeys: nil).first)
        try Data("{ not json".utf8).write(to: file)

        HearthApp.app(name: name)?.delete()
        let restarted = server.makeAuth(name: name, store: FileUserStore(directory: storeDirectory))
        #expect(restarted.currentUser == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // And the app carries on.
        _ = try await restarted.signInAnonymously()
        #expect(restarted.currentUser != nil)
    }
}
