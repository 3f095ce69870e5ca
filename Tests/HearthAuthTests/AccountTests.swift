import Foundation
import HearthAuth
import Testing

@Suite("Account changes")
struct AccountTests {
    @Test func sensitiveChangesNeedARecentSignInAndReauthenticationGivesOne() async throws {
        let server = try await TestServer(tokens: ["recentSignInSeconds": 5])
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let user = try await auth.createUser(withEmail: email, password: "first password").user
        try await Task.sleep(for: .seconds(6))

        let stale = await #expect(throws: NSError.self) { try await user.updatePassword(to: "second password") }
        #expect(stale?.code == AuthErrorCode.requiresRecentLogin.rawValue)
        #expect(auth.currentUser === user, "requiresRecentLogin must not sign the user out")

        let someoneElse = try await server.makeAuth().createUser(withEmail: uniqueEmail(), password: "their password")
        let mismatch = await #expect(throws: NSError.self) {
            try await user.reauthenticate(
                with: EmailAuthProvider.credential(withEmail: someoneElse.user.email!, password: "their password"))
        }
        #expect(mismatch?.code == AuthErrorCode.userMismatch.rawValue)

        try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "first password"))
        try await user.updatePassword(to: "second password")
        #expect(auth.currentUser?.uid == user.uid)
        #expect(try await server.makeAuth().signIn(withEmail: email, password: "second password").user.uid == user.uid)
    }

    @Test func deleteRemovesTheAccountAndSignsOut() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let user = try await auth.createUser(withEmail: email, password: "doomed account").user
        try await user.delete()
        #expect(auth.currentUser == nil)
        let gone = await #expect(throws: NSError.self) {
            try await auth.signIn(withEmail: email, password: "doomed account")
        }
        #expect(gone?.code == AuthErrorCode.invalidCredential.rawValue)
    }

    @Test func profileChangesAreSavedOnTheServer() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let user = try await auth.createUser(withEmail: email, password: "profile pass").user

        let change = user.createProfileChangeRequest()
        change.displayName = "김하늘"
        change.photoURL = URL(string: "https://example.com/me.png")
        try await change.commitChanges()
        #expect(user.displayName == "김하늘")

        let elsewhere = try await server.makeAuth().signIn(withEmail: email, password: "profile pass").user
        #expect(elsewhere.displayName == "김하늘")
        #expect(elsewhere.photoURL?.absoluteString == "https://example.com/me.png")

        let removal = user.createProfileChangeRequest()
        removal.displayName = nil
        try await removal.commitChanges()
        try await elsewhere.reload()
        #expect(elsewhere.displayName == nil)
        #expect(elsewhere.photoURL != nil)
    }

    @Test func aSessionEndedOnTheServerSignsTheUserOut() async throws {
        let server = try await TestServer()
        let email = uniqueEmail()
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: email, password: "two devices").user
        let other = try await server.makeAuth().signIn(withEmail: email, password: "two devices").user
        try await other.delete()

        let error = await #expect(throws: NSError.self) { try await user.getIDToken(forcingRefresh: true) }
        #expect(error?.code == AuthErrorCode.userNotFound.rawValue)
        #expect(auth.currentUser == nil)
    }

    @Test func anotherAuthOfTheProjectCanAdoptTheUser() async throws {
        let server = try await TestServer()
        let first = server.makeAuth()
        let user = try await first.createUser(withEmail: uniqueEmail(), password: "moving house").user
        let second = server.makeAuth()
        try await second.updateCurrentUser(user)
        #expect(second.currentUser == user, "the same User object, as FirebaseAuth compares them")
        let none = await #expect(throws: NSError.self) { try await second.updateCurrentUser(nil) }
        #expect(none?.code == AuthErrorCode.nullUser.rawValue)
        #expect(second.currentUser == user, "nil is refused, not a sign-out")
        _ = try await second.currentUser?.getIDToken(forcingRefresh: true)

        let otherProject = Auth.auth(
            app: HearthApp.configure(
                name: "other-\(UUID().uuidString)",
                options: HearthOptions(apiKey: "another-key", projectID: "elsewhere", endpoint: server.endpoint),
                userStore: InMemoryUserStore()))
        let refused = await #expect(throws: NSError.self) { try await otherProject.updateCurrentUser(user) }
        #expect(refused?.code == AuthErrorCode.invalidUserToken.rawValue)
        #expect(otherProject.currentUser == nil)
    }
}
