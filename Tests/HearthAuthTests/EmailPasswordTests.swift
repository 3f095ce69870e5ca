import Foundation
import HearthAuth
import Testing

@Suite("E-mail and password")
struct EmailPasswordTests {
    @Test func signUpThenSignInReturnsTheSameUser() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let email = uniqueEmail()

        let created = try await auth.createUser(withEmail: email, password: "correct horse")
        #expect(created.additionalUserInfo?.isNewUser == true)
        #expect(created.user.email == email)
        #expect(created.user.isAnonymous == false)
        #expect(created.user.providerData.map(\.providerID) == ["password"])
        #expect(auth.currentUser?.uid == created.user.uid)

        try auth.signOut()
        #expect(auth.currentUser == nil)

        let signedIn = try await auth.signIn(withEmail: email, password: "correct horse")
        #expect(signedIn.user.uid == created.user.uid)
        #expect(signedIn.additionalUserInfo?.isNewUser == false)
        let token = try await signedIn.user.getIDTokenResult()
        #expect(token.signInProvider == "password")
        #expect(token.claims["email"] as? String == email)
        #expect(token.expirationDate > Date())
    }

    @Test func wrongPasswordAndTakenEmailAreFirebaseErrors() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let email = uniqueEmail()
        _ = try await auth.createUser(withEmail: email, password: "correct horse")

        let wrong = await #expect(throws: NSError.self) {
            try await auth.signIn(withEmail: email, password: "nope nope")
        }
        #expect(wrong?.domain == "FIRAuthErrorDomain")
        #expect(wrong?.code == AuthErrorCode.invalidCredential.rawValue)
        #expect(wrong?.userInfo[AuthErrorUserInfoNameKey] as? String == "ERROR_INVALID_CREDENTIAL")
        #expect(wrong?.userInfo[AuthErrorUserInfoServerCodeKey] as? String == "INVALID_LOGIN_CREDENTIALS")

        let taken = await #expect(throws: NSError.self) {
            try await auth.createUser(withEmail: email, password: "another one")
        }
        #expect(taken?.code == AuthErrorCode.emailAlreadyInUse.rawValue)

        let weak = await #expect(throws: NSError.self) {
            try await auth.createUser(withEmail: uniqueEmail(), password: "1")
        }
        #expect(weak?.code == AuthErrorCode.weakPassword.rawValue)
        // A failed sign-in leaves the signed-in user alone.
        #expect(auth.currentUser?.email == email)
    }
}
