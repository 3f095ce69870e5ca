import Foundation
import Testing

@testable import HearthAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Password resets and address verification through HearthAuth, with the links read from the server's
/// development outbox (listed by emulator mode's `oobCodes` route, as the Firebase emulator lists them).
@Suite("E-mail actions")
struct EmailActionTests {
    func lastCode(_ server: TestServer) async throws -> String {
        let url = server.endpoint.appendingPathComponent("emulator/v1/projects/\(TestServer.projectID)/oobCodes")
        let (data, _) = try await URLSession.shared.data(from: url)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let codes = try #require(json["oobCodes"] as? [[String: Any]])
        return try #require(codes.last?["oobCode"] as? String)
    }

    @Test func aResetLinkSetsANewPasswordOnce() async throws {
        let server = try await TestServer(emulator: true)
        defer { server.stop() }
        let auth = server.makeAuth()
        let email = uniqueEmail()
        _ = try await auth.createUser(withEmail: email, password: "first pass")
        try await auth.sendPasswordReset(withEmail: email)
        let code = try await lastCode(server)
        #expect(try await auth.verifyPasswordResetCode(code) == email)
        try await auth.confirmPasswordReset(withCode: code, newPassword: "second pass")
        _ = try await auth.signIn(withEmail: email, password: "second pass")
        let reused = await #expect(throws: NSError.self) {
            try await auth.confirmPasswordReset(withCode: code, newPassword: "third pass")
        }
        #expect(reused.map(authCode) == .invalidActionCode)
    }

    @Test func aVerificationLinkConfirmsTheAddress() async throws {
        let server = try await TestServer(emulator: true)
        defer { server.stop() }
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "first pass").user
        #expect(user.isEmailVerified == false)
        try await user.sendEmailVerification()
        try await auth.applyActionCode(try await lastCode(server))
        try await user.reload()
        #expect(user.isEmailVerified == true)

        // Moving to a new address is a credential change: the account answers to the new address only.
        let newEmail = uniqueEmail()
        try await user.sendEmailVerification(beforeUpdatingEmail: newEmail)
        try await auth.applyActionCode(try await lastCode(server))
        let moved = try await auth.signIn(withEmail: newEmail, password: "first pass")
        #expect(moved.user.uid == user.uid && moved.user.isEmailVerified)
    }

    func lastLink(_ server: TestServer) async throws -> String {
        let url = server.endpoint.appendingPathComponent("emulator/v1/projects/\(TestServer.projectID)/oobCodes")
        let (data, _) = try await URLSession.shared.data(from: url)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let codes = try #require(json["oobCodes"] as? [[String: Any]])
        return try #require(codes.last?["oobLink"] as? String)
    }

    @Test func aSignInLinkSignsInWithoutAPasswordOnce() async throws {
        let server = try await TestServer(emulator: true)
        defer { server.stop() }
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let settings = ActionCodeSettings()
        settings.url = URL(string: "https://localhost/finishSignIn?cart=42")
        settings.handleCodeInApp = true
        settings.setIOSBundleID("com.example.hearth")
        try await auth.sendSignInLink(toEmail: email, actionCodeSettings: settings)
        let link = try await lastLink(server)
        #expect(auth.isSignIn(withEmailLink: link))
        #expect(!auth.isSignIn(withEmailLink: "https://localhost/finishSignIn?cart=42"))
        let parsed = try #require(ActionCodeURL(link: link))
        #expect(parsed.operation == .emailLink && parsed.code != nil)
        #expect(parsed.continueURL?.absoluteString == "https://localhost/finishSignIn?cart=42")
        #expect(parsed.apiKey == TestServer.apiKey)
        let info = try await auth.checkActionCode(try #require(parsed.code))
        #expect(info.operation == .emailLink)

        let result = try await auth.signIn(withEmail: email, link: link)
        #expect(result.additionalUserInfo?.isNewUser == true)
        #expect(result.user.email == email && result.user.isEmailVerified)
        #expect(auth.currentUser?.uid == result.user.uid)
        let reused = await #expect(throws: NSError.self) { try await auth.signIn(withEmail: email, link: link) }
        #expect(reused.map(authCode) == .invalidActionCode)

        // A second link, as a credential, signs in to the same account.
        try auth.signOut()
        try await auth.sendSignInLink(toEmail: email, actionCodeSettings: settings)
        let again = try await auth.signIn(
            with: EmailAuthProvider.credential(withEmail: email, link: try await lastLink(server)))
        #expect(again.user.uid == result.user.uid && again.additionalUserInfo?.isNewUser == false)
    }

    @Test func checkActionCodeSaysWhatARecoveryCodeRestores() async throws {
        let server = try await TestServer(emulator: true)
        defer { server.stop() }
        let auth = server.makeAuth()
        let email = uniqueEmail()
        let user = try await auth.createUser(withEmail: email, password: "first pass").user
        try await user.sendEmailVerification(with: ActionCodeSettings())
        try await auth.applyActionCode(try await lastCode(server))
        let newEmail = uniqueEmail()
        try await user.sendEmailVerification(beforeUpdatingEmail: newEmail, actionCodeSettings: ActionCodeSettings())
        let change = try await auth.checkActionCode(try await lastCode(server))
        #expect(change.operation == .verifyAndChangeEmail)
        try await auth.applyActionCode(try await lastCode(server))
        // The old address got a RECOVER_EMAIL link.
        let recovery = try await auth.checkActionCode(try await lastCode(server))
        #expect(recovery.operation == .recoverEmail)
        #expect(recovery.email == newEmail && recovery.previousEmail == email)
    }
}
