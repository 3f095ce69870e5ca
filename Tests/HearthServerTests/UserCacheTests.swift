import Foundation
import HearthCore
import HearthSQLite
import Testing

@testable import HearthEngine

/// The user cache's write-through after a sign-in's bookkeeping (a passkey sign-in keeps its user with the new
/// counter instead of reading it again), on a real SQLite store: kept only when no other bookkeeping write of the
/// user came between the read and the write, and never past a change of the store's stamp.
@Suite("User cache: a sign-in's user kept with its bookkeeping")
struct UserCacheTests {
    func withStore(_ body: (SQLiteAuthStore, UserRecord) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteAuthStore(path: directory.appendingPathComponent("hearth.sqlite").path)
        let user = UserRecord(
            projectID: "p1", uid: "u1", displayName: "stored", validSince: Date(timeIntervalSince1970: 0),
            createdAt: Date(timeIntervalSince1970: 0))
        try await store.insertUser(user)
        do {
            try await body(store, user)
        } catch {
            try await store.shutdown()
            throw error
        }
        try await store.shutdown()
    }

    /// A user the cache was given (`updated`) is told apart from the stored one by its display name.
    func given(_ user: UserRecord, _ name: String) -> UserRecord {
        var user = user
        user.displayName = name
        return user
    }

    /// Reads u1 through `cache`, lets `between` write bookkeeping, then writes back u1 named `name` with the read's
    /// ticket: the display name the next read answers.
    func nameAfterWriteBack(
        _ name: String, _ cache: UserCache, _ store: SQLiteAuthStore, _ user: UserRecord,
        between: (UserCache) -> Void = { _ in }
    ) async throws -> String? {
        let read = try #require(try await cache.ticketed(projectID: "p1", uid: "u1", store: store))
        between(cache)
        cache.bookkeepingWritten(projectID: "p1", uid: "u1", updated: given(user, name), ticket: read.ticket)
        return try await cache.user(projectID: "p1", uid: "u1", store: store)?.displayName
    }

    @Test func theUserWithItsWriteIsKeptAndAnswersTheNextRead() async throws {
        try await withStore { store, user in
            let name = try await nameAfterWriteBack("kept", UserCache(), store, user)
            #expect(name == "kept")
        }
    }

    @Test func anotherBookkeepingWriteOfTheUserAfterTheReadKeepsNothing() async throws {
        try await withStore { store, user in
            let cache = UserCache()
            // A second sign-in of the same user wrote its bookkeeping after this read and before this write.
            let raced = try await nameAfterWriteBack("stale", cache, store, user) {
                $0.bookkeepingWritten(projectID: "p1", uid: "u1")
            }
            #expect(raced == "stored")
            // Another user's write is no reason to drop this one's.
            let other = try await nameAfterWriteBack("kept", cache, store, user) {
                $0.bookkeepingWritten(projectID: "p1", uid: "u2")
            }
            #expect(other == "kept")
        }
    }

    @Test func aKeptUserIsDroppedWhenTheStoreChangesAUser() async throws {
        try await withStore { store, user in
            let cache = UserCache()
            #expect(try await nameAfterWriteBack("kept", cache, store, user) == "kept")
            var disabled = try #require(try await store.user(projectID: "p1", uid: "u1"))
            disabled.disabled = true
            try await store.updateUser(disabled)
            let next = try #require(try await cache.user(projectID: "p1", uid: "u1", store: store))
            #expect(next.disabled && next.displayName == "stored")
        }
    }

    @Test func aReadByAnotherKeyIsKeptUnderItsUser() async throws {
        try await withStore { store, user in
            let cache = UserCache()
            let read = try #require(
                try await cache.read(store: store) { try await store.user(projectID: "p1", uid: "u1") })
            cache.bookkeepingWritten(projectID: "p1", uid: "u1", updated: given(user, "kept"), ticket: read.ticket)
            #expect(try await cache.user(projectID: "p1", uid: "u1", store: store)?.displayName == "kept")
            // Without a ticket (or a write that failed) the user is dropped, as before.
            cache.bookkeepingWritten(projectID: "p1", uid: "u1")
            #expect(try await cache.user(projectID: "p1", uid: "u1", store: store)?.displayName == "stored")
        }
    }
}
