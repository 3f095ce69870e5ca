import Foundation
import HearthAuth
import Testing

@Suite("Listeners")
struct ListenerTests {
    @Test func authStateChangesFollowSignInAndSignOut() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        var changes = auth.authStateChanges.makeAsyncIterator()
        #expect(try #require(await changes.next()) == nil)

        let user = try await auth.signInAnonymously().user
        #expect(try #require(await changes.next())?.uid == user.uid)
        // A token refresh is not a state change, but it is an ID token change.
        var tokenChanges = auth.idTokenChanges.makeAsyncIterator()
        #expect(try #require(await tokenChanges.next())?.uid == user.uid)
        _ = try await user.getIDToken(forcingRefresh: true)
        try await Task.sleep(for: .seconds(1.1))  // ID tokens are per second; make the next one differ
        _ = try await user.getIDToken(forcingRefresh: true)
        #expect(try #require(await tokenChanges.next())?.uid == user.uid)

        try auth.signOut()
        #expect(try #require(await changes.next()) == nil)
    }

    @Test func closureListenersRunOnTheMainActorAndCanBeRemoved() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let seen = Seen()
        let handle = auth.addStateDidChangeListener { _, user in
            MainActor.assertIsolated()
            seen.uids.append(user?.uid)
        }
        let user = try await auth.signInAnonymously().user
        try await waitUntil { seen.uids.count == 2 }
        #expect(await seen.uids == [nil, user.uid])

        auth.removeStateDidChangeListener(handle)
        try auth.signOut()
        try await Task.sleep(for: .milliseconds(200))
        #expect(await seen.uids.count == 2)
    }

    /// `Auth.authStateDidChangeNotification` (also `.AuthStateDidChange`) is posted on the main actor with
    /// the `Auth` as object, whenever the ID token listeners run: sign-in, new token, sign-out.
    @Test func theAuthStateNotificationIsPostedForSignInRefreshAndSignOut() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let other = server.makeAuth()
        let seen = Seen()
        let observer = NotificationCenter.default.addObserver(
            forName: .AuthStateDidChange, object: auth, queue: nil
        ) { note in
            let uid = (note.object as? Auth)?.currentUser?.uid
            MainActor.assumeIsolated { seen.uids.append(uid) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let user = try await auth.signInAnonymously().user
        try await waitUntil { seen.uids.count == 1 }
        _ = try await other.signInAnonymously()  // another Auth's change is not this one's
        try await Task.sleep(for: .seconds(1.1))  // ID tokens are per second; make the next one differ
        _ = try await user.getIDToken(forcingRefresh: true)
        try await waitUntil { seen.uids.count == 2 }
        try auth.signOut()
        try await waitUntil { seen.uids.count == 3 }
        #expect(await seen.uids == [user.uid, user.uid, nil])
    }
}

@MainActor final class Seen {
    var uids: [String?] = []
}

/// Polls a main-actor condition (completion handlers and listeners run there) for up to 20 s: password
/// hashing on a busy CI machine can take seconds.
@MainActor func waitUntil(_ condition: @MainActor () -> Bool) async throws {
    for _ in 0..<1000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("condition not met within 20 s")
}
