import Foundation
import HearthAuth
import Testing

/// Runs the seeds' snippets (SeedSnippets.swift) that the server supports today against a live
/// server, through the default app as the seeds use it. Serialized: they share `Auth.auth()`.
@Suite("Seed snippets", .serialized)
@MainActor struct SeedSnippetTests {
    let server: TestServer

    init() async throws {
        server = try await TestServer()
        Seed003FacebookLogin.configure(
            options: HearthOptions(
                apiKey: TestServer.apiKey, projectID: TestServer.projectID, endpoint: server.endpoint))
    }

    @Test func appleNonceHelpersProduceSHA256Hex() {
        let hex = Set("0123456789abcdef")
        for hash in [
            Seed000AppleSignIn().startSignInWithAppleFlow(), Seed002AppleIDViewModel().startSignInWithAppleFlow(),
        ] {
            #expect(hash.count == 64 && hash.allSatisfy(hex.contains))
        }
        let seed = Seed000AppleSignIn()
        seed.deleteCurrentUser()
        #expect(seed.lastError == nil)
    }

    @Test func emailPasswordAndProfileSnippets() async throws {
        let seed = Seed004EmailAndProfile()
        let email = uniqueEmail()
        seed.createUser(email: email, password: "seed password")
        try await waitUntil { seed.results.contains { $0.hasPrefix("created ") } }
        let uid = try #require(Auth.auth().currentUser?.uid)
        #expect(seed.results == ["created \(uid)"])

        seed.readCurrentUser()
        #expect(seed.results.last == "\(uid) \(email) -")
        #expect(seed.providerRow(0) == ("password", email))

        seed.updateDisplayName("Seed User")
        try await waitUntil { seed.results.last == "committed true" }
        #expect(Auth.auth().currentUser?.displayName == "Seed User")

        seed.signOut()
        #expect(Auth.auth().currentUser == nil)
        seed.signIn(email: email, password: "seed password")
        try await waitUntil { seed.results.last == "signed in \(uid)" }
        Seed000AppleSignIn().signOut()
        #expect(Auth.auth().currentUser == nil)
    }

    @Test func phoneIntegrationTestSnippet() async throws {
        let seed = Seed001PhoneSignIn()
        seed.integrationTest()
        try await waitUntil { seed._user != nil || seed.lastMessage != nil }
        #expect(seed.lastMessage == nil)
        #expect(seed._user?.phoneNumber == TestServer.seedTestPhone)
        try Auth.auth().signOut()
    }

    @Test func phoneSignInThroughASavedVerificationID() async throws {
        UserDefaults.standard.removeObject(forKey: "authVerificationID")
        let seed = Seed001PhoneSignIn()
        seed.setLanguage()
        #expect(Auth.auth().languageCode == "fr")
        seed.sendCode(phoneNumber: TestServer.testPhone)
        try await waitUntil { UserDefaults.standard.string(forKey: "authVerificationID") != nil }
        seed.signIn(verificationCode: TestServer.testCode)
        try await waitUntil { seed._user != nil || seed.lastMessage != nil }
        #expect(seed._user?.phoneNumber == TestServer.testPhone)
        Seed003FacebookLogin().signOut()
        Auth.auth().languageCode = nil
        UserDefaults.standard.removeObject(forKey: "authVerificationID")
    }
}
