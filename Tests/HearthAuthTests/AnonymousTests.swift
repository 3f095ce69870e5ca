import Foundation
import HearthAuth
import Testing

@Suite("Anonymous accounts")
struct AnonymousTests {
    @Test func anonymousUserKeepsTheirUidWhenLinkingAnEmail() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()

        let anonymous = try await auth.signInAnonymously()
        #expect(anonymous.user.isAnonymous)
        #expect(anonymous.additionalUserInfo?.isNewUser == true)
        #expect(try await anonymous.user.getIDTokenResult().signInProvider == "anonymous")
        // Signing in anonymously again keeps the same anonymous user.
        #expect(try await auth.signInAnonymously().user.uid == anonymous.user.uid)

        let email = uniqueEmail()
        let linked = try await anonymous.user.link(
            with: EmailAuthProvider.credential(withEmail: email, password: "s3cret pass"))
        #expect(linked.user.uid == anonymous.user.uid)
        #expect(linked.user.isAnonymous == false)
        #expect(linked.user.email == email)
        #expect(linked.user.providerData.map(\.providerID) == ["password"])

        let other = server.makeAuth()
        #expect(try await other.signIn(withEmail: email, password: "s3cret pass").user.uid == anonymous.user.uid)
    }
}
