import Foundation
import HearthAuth
import Testing

@Suite("Phone numbers")
struct PhoneTests {
    @Test func testNumberSignsInWithItsFixedCode() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        auth.settings?.isAppVerificationDisabledForTesting = true
        auth.languageCode = "ko"
        let provider = PhoneAuthProvider.provider(auth: auth)

        let verificationID = try await provider.verifyPhoneNumber(TestServer.testPhone, uiDelegate: nil)
        let wrong = provider.credential(withVerificationID: verificationID, verificationCode: "000000")
        let error = await #expect(throws: NSError.self) { try await auth.signIn(with: wrong) }
        #expect(error?.code == AuthErrorCode.invalidVerificationCode.rawValue)

        let credential = provider.credential(withVerificationID: verificationID, verificationCode: TestServer.testCode)
        let result = try await auth.signIn(with: credential)
        #expect(result.user.phoneNumber == TestServer.testPhone)
        #expect(result.additionalUserInfo?.isNewUser == true)
        #expect(result.additionalUserInfo?.providerID == "phone")
        #expect(try await result.user.getIDTokenResult().signInProvider == "phone")

        let unknown = await #expect(throws: NSError.self) {
            try await auth.signIn(
                with: provider.credential(withVerificationID: "not-a-session", verificationCode: "123456"))
        }
        #expect(unknown?.code == AuthErrorCode.invalidVerificationID.rawValue)
    }

    /// Seed 000's recovery flow, with a phone number: linking a number another account owns fails
    /// with `credentialAlreadyInUse` and a credential that signs in to that account.
    @Test func linkingATakenNumberOffersTheOwnersCredential() async throws {
        let server = try await TestServer()
        let ownerAuth = server.makeAuth()
        let owner = try await signInWithPhone(ownerAuth)

        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "another pass").user
        let provider = PhoneAuthProvider.provider(auth: auth)
        let id = try await provider.verifyPhoneNumber(TestServer.testPhone, uiDelegate: nil)
        let error = await #expect(throws: NSError.self) {
            try await user.link(
                with: provider.credential(withVerificationID: id, verificationCode: TestServer.testCode))
        }
        #expect(error?.code == AuthErrorCode.credentialAlreadyInUse.rawValue)
        let updated = try #require(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? AuthCredential)
        #expect(auth.currentUser?.uid == user.uid)

        let switched = try await auth.signIn(with: updated)
        #expect(switched.user.uid == owner.uid)
        #expect(auth.currentUser?.phoneNumber == TestServer.testPhone)
    }

    @Test func linkingAFreeNumberAddsThePhoneProvider() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "another pass").user
        let provider = PhoneAuthProvider.provider(auth: auth)
        let id = try await provider.verifyPhoneNumber(TestServer.otherTestPhone, uiDelegate: nil)
        let linked = try await user.link(
            with: provider.credential(withVerificationID: id, verificationCode: TestServer.otherTestCode))
        #expect(linked.user.uid == user.uid)
        #expect(user.phoneNumber == TestServer.otherTestPhone)
        #expect(Set(user.providerData.map(\.providerID)) == ["password", "phone"])

        let unlinked = try await user.unlink(fromProvider: "phone")
        #expect(unlinked.phoneNumber == nil)
        #expect(user.providerData.map(\.providerID) == ["password"])
        let missing = await #expect(throws: NSError.self) { try await user.unlink(fromProvider: "phone") }
        #expect(missing?.code == AuthErrorCode.noSuchProvider.rawValue)
    }

    @Test func updatePhoneNumberMovesTheAccountToTheNewNumber() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let user = try await signInWithPhone(auth)
        let provider = PhoneAuthProvider.provider(auth: auth)

        let id = try await provider.verifyPhoneNumber(TestServer.otherTestPhone, uiDelegate: nil)
        try await user.updatePhoneNumber(
            provider.credential(withVerificationID: id, verificationCode: TestServer.otherTestCode))
        #expect(user.phoneNumber == TestServer.otherTestPhone)

        // The new number signs in to the same account; the old one is free.
        try auth.signOut()
        let again = try await provider.verifyPhoneNumber(TestServer.otherTestPhone, uiDelegate: nil)
        let signedIn = try await auth.signIn(
            with: provider.credential(withVerificationID: again, verificationCode: TestServer.otherTestCode))
        #expect(signedIn.user.uid == user.uid)
        #expect(signedIn.additionalUserInfo?.isNewUser == false)

        // A number that belongs to another account is refused, with that account's credential.
        let other = try await signInWithPhone(server.makeAuth())
        #expect(other.uid != user.uid)
        let taken = try await provider.verifyPhoneNumber(TestServer.testPhone, uiDelegate: nil)
        let error = await #expect(throws: NSError.self) {
            try await signedIn.user.updatePhoneNumber(
                provider.credential(withVerificationID: taken, verificationCode: TestServer.testCode))
        }
        #expect(error?.code == AuthErrorCode.credentialAlreadyInUse.rawValue)
        #expect(error?.userInfo[AuthErrorUserInfoUpdatedCredentialKey] is PhoneAuthCredential)
        #expect(signedIn.user.phoneNumber == TestServer.otherTestPhone)
    }

    /// With an APNs token the SDK asks `accounts:verifyClient` first, as FirebaseAuth does; a server with
    /// no APNs key (OPERATION_NOT_ALLOWED) gets the plain request, which a project without app
    /// verification accepts.
    @Test func anAPNSTokenIsHarmlessWhenTheServerSendsNoPushes() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let deviceToken = Data((0..<32).map { UInt8($0 * 7 % 256) })  // APNs tokens are 32 bytes
        auth.setAPNSToken(deviceToken, type: .sandbox)
        #expect(auth.apnsToken == deviceToken)
        let user = try await signInWithPhone(auth)
        #expect(user.phoneNumber == TestServer.testPhone)
    }

    private func signInWithPhone(_ auth: Auth) async throws -> User {
        let provider = PhoneAuthProvider.provider(auth: auth)
        let id = try await provider.verifyPhoneNumber(TestServer.testPhone, uiDelegate: nil)
        return try await auth.signIn(
            with: provider.credential(withVerificationID: id, verificationCode: TestServer.testCode)
        ).user
    }
}
