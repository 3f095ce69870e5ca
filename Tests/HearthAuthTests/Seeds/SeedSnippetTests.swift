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
        (seed as any PhoneSeedSteps).integrationTest()
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
        (seed as any PhoneSeedSteps).signIn(verificationCode: TestServer.testCode)
        try await waitUntil { seed._user != nil || seed.lastMessage != nil }
        #expect(seed._user?.phoneNumber == TestServer.testPhone)
        Seed003FacebookLogin().signOut()
        Auth.auth().languageCode = nil
        UserDefaults.standard.removeObject(forKey: "authVerificationID")
    }

    /// Seed 003's multi-factor branch as written: a Facebook sign-in (an emulator-mode fake token) of a user with an
    /// SMS factor stops at secondFactorRequired; the snippet picks the hint by display name, texts the code and
    /// resolves. The factor is a test number, whose fixed code the snippet's second prompt answers.
    @Test func facebookSignInWithASecondFactor() async throws {
        let mfaServer = try await TestServer(
            emulator: true, mfa: ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]])
        defer { mfaServer.stop() }
        Seed003FacebookLogin.configure(options: mfaServer.options)
        let seed = Seed003FacebookLogin()
        let fake = #"{"sub":"fb-seed-1","email":"seed-mfa@example.com","email_verified":true}"#
        let credential = seed.classicCredential(accessToken: fake)

        let user = try await Auth.auth().signIn(with: credential).user
        let phone = PhoneAuthProvider.provider()
        let enrollID = try await phone.verifyPhoneNumber(
            TestServer.testPhone, uiDelegate: nil, multiFactorSession: try await user.multiFactor.session())
        try await user.multiFactor.enroll(
            with: PhoneMultiFactorGenerator.assertion(
                with: phone.credential(withVerificationID: enrollID, verificationCode: TestServer.testCode)),
            displayName: "work phone")
        seed.signOut()

        seed.textInputs = ["work phone", TestServer.testCode]
        seed.signIn(with: credential)
        try await waitUntil { Auth.auth().currentUser != nil }
        #expect(Auth.auth().currentUser?.uid == user.uid)
        #expect(seed.messages == ["Select factor to sign in\nwork phone ", "Verification code for work phone"])
        #expect(try await Auth.auth().currentUser?.getIDTokenResult().signInSecondFactor == "phone")
        seed.signOut()
    }
}
