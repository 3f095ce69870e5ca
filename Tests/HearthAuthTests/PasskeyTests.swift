import Crypto
import Foundation
import HearthAuth
import HearthWebAuthnTestSupport
import Testing

/// HearthAuth's passkey calls against the real binary in production mode, with a software authenticator in Swift
/// standing in for the platform's: the same layer `startPasskeyEnrollment`/`startPasskeySignIn` wrap on Apple
/// platforms, so everything but the AuthenticationServices hand-off runs here.
@Suite struct PasskeyTests {
    static let origin = "https://app.example.com"
    static var passkeyConfig: [String: Any] { ["rpId": "localhost", "expectedOrigins": [origin]] }
    static let up = SoftwareAuthenticator.upFlag, uv = SoftwareAuthenticator.uvFlag
    static let synced = SoftwareAuthenticator.beFlag | SoftwareAuthenticator.bsFlag

    /// The platform's part of an enrolment: a new credential for `options`.
    static func register(
        _ authenticator: SoftwareAuthenticator, _ options: PasskeyCreationOptions, flags: UInt8 = up | uv
    ) -> PasskeyRegistration {
        let clientData = SoftwareAuthenticator.clientData(
            type: "webauthn.create", challenge: Array(options.challenge), origin: origin)
        let authData = authenticator.authenticatorData(
            rpID: options.relyingPartyID, flags: flags | SoftwareAuthenticator.atFlag, attested: true)
        return PasskeyRegistration(
            credentialID: Data(authenticator.credentialID), clientDataJSON: Data(clientData),
            attestationObject: Data(authenticator.attestationObject(authData: authData, clientDataJSON: clientData)))
    }

    /// The platform's part of a sign-in: an assertion for `options` by the credential whose user handle is `userID`.
    static func assert(
        _ authenticator: SoftwareAuthenticator, _ options: PasskeyAssertionOptions, userID: Data,
        flags: UInt8 = up | uv, signCount: UInt32 = 0, signer: TestCredentialKey? = nil
    ) -> PasskeyAssertion {
        let clientData = SoftwareAuthenticator.clientData(
            type: "webauthn.get", challenge: Array(options.challenge), origin: origin)
        let authData = authenticator.authenticatorData(
            rpID: options.relyingPartyID, flags: flags, signCount: signCount, attested: false)
        let signature = (signer ?? authenticator.key).sign(authData + Array(SHA256.hash(data: clientData)))
        return PasskeyAssertion(
            credentialID: Data(authenticator.credentialID), clientDataJSON: Data(clientData),
            authenticatorData: Data(authData), signature: Data(signature), userID: userID)
    }

    /// Expects `body` to fail with FirebaseAuth's `code`.
    static func expectCode(
        _ code: AuthErrorCode, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("succeeded; expected \(code)", sourceLocation: sourceLocation)
        } catch {
            #expect(authCode(error) == code, comment, sourceLocation: sourceLocation)
        }
    }

    static func newAuthenticator() -> SoftwareAuthenticator {
        var authenticator = SoftwareAuthenticator(key: .es256(P256.Signing.PrivateKey()))
        authenticator.credentialID = (0..<16).map { _ in UInt8.random(in: 0...255) }
        return authenticator
    }

    @Test func enrolsSignsInAndUnenrolsAPasskey() async throws {
        let server = try await TestServer(passkeyConfig: Self.passkeyConfig)
        defer { server.stop() }
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "correct horse").user
        #expect(user.enrolledPasskeys?.isEmpty == true)

        let options = try await user.passkeyCreationOptions(withName: "Laptop")
        #expect(options.relyingPartyID == "localhost")
        #expect(options.challenge.count == 40)  // the time of issue (8 bytes), then 32 random bytes
        #expect(options.name == "Laptop")
        #expect(!options.userID.isEmpty && options.userID != Data(user.uid.utf8))
        let authenticator = Self.newAuthenticator()
        let enrolled = try await user.finalizePasskeyEnrollment(with: Self.register(authenticator, options))
        #expect(enrolled.user.uid == user.uid)
        let passkeys = try #require(user.enrolledPasskeys)
        #expect(passkeys.map(\.name) == ["Laptop"])
        #expect(passkeys.map(\.credentialID) == [Data(authenticator.credentialID).base64EncodedString()])

        try auth.signOut()
        let signInOptions = try await auth.passkeyAssertionOptions()
        #expect(signInOptions.relyingPartyID == "localhost")
        let result = try await auth.finalizePasskeySignIn(
            with: Self.assert(authenticator, signInOptions, userID: options.userID, signCount: 1))
        #expect(result.user.uid == user.uid)
        #expect(auth.currentUser?.uid == user.uid)
        #expect(try await result.user.getIDTokenResult().signInProvider == "passkey")
        #expect(result.user.enrolledPasskeys?.count == 1)

        try await result.user.unenrollPasskey(withCredentialID: passkeys[0].credentialID!)
        #expect(result.user.enrolledPasskeys?.isEmpty == true)
        await Self.expectCode(.missingPasskeyEnrollment) {
            try await result.user.unenrollPasskey(withCredentialID: passkeys[0].credentialID!)
        }
        await Self.expectCode(.missingPasskeyEnrollment) {
            try await result.user.unenrollPasskey(withCredentialID: "")
        }
    }

    @Test func refusedAssertionsSignNobodyIn() async throws {
        let server = try await TestServer(passkeyConfig: Self.passkeyConfig)
        defer { server.stop() }
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "correct horse").user
        let options = try await user.passkeyCreationOptions(withName: nil)
        let authenticator = Self.newAuthenticator()
        _ = try await user.finalizePasskeyEnrollment(with: Self.register(authenticator, options))
        #expect(user.enrolledPasskeys?.map(\.name) == ["Unnamed account (Apple)"])
        try auth.signOut()

        let other = TestCredentialKey.es256(P256.Signing.PrivateKey())
        let refusals: [(Comment, (PasskeyAssertionOptions) -> PasskeyAssertion)] = [
            ("signed by another key", { Self.assert(authenticator, $0, userID: options.userID, signer: other) }),
            ("another user handle", { Self.assert(authenticator, $0, userID: Data("someone-else".utf8)) }),
            ("UV missing", { Self.assert(authenticator, $0, userID: options.userID, flags: Self.up) }),
        ]
        for (why, make) in refusals {
            let signInOptions = try await auth.passkeyAssertionOptions()
            await Self.expectCode(.invalidAuthenticatorResponse, why) {
                _ = try await auth.finalizePasskeySignIn(with: make(signInOptions))
            }
            #expect(auth.currentUser == nil, why)
        }
        // An enrolment the authenticator never finished is refused before anything is sent.
        var incomplete = Self.register(authenticator, options)
        incomplete.attestationObject = Data()
        await Self.expectCode(.internalError) {
            _ = try await user.finalizePasskeyEnrollment(with: incomplete)
        }
    }

    /// Synced passkeys (iCloud Keychain, Google Password Manager) keep no counter; a device-bound credential whose
    /// counter goes back is a possible clone.
    @Test func syncedPasskeysSignInWithCounterZeroAndClonesDoNot() async throws {
        let server = try await TestServer(passkeyConfig: Self.passkeyConfig)
        defer { server.stop() }
        let auth = server.makeAuth()
        // An anonymous account that gains a passkey is no longer anonymous.
        let user = try await auth.signInAnonymously().user
        let options = try await user.passkeyCreationOptions(withName: "Synced")
        let syncedKey = Self.newAuthenticator()
        _ = try await user.finalizePasskeyEnrollment(
            with: Self.register(syncedKey, options, flags: Self.up | Self.uv | Self.synced))
        #expect(!user.isAnonymous)
        let deviceOptions = try await user.passkeyCreationOptions(withName: "Security key")
        let deviceKey = Self.newAuthenticator()
        _ = try await user.finalizePasskeyEnrollment(with: Self.register(deviceKey, deviceOptions))
        #expect(user.enrolledPasskeys?.count == 2)
        try auth.signOut()

        for _ in 0..<2 {
            let signInOptions = try await auth.passkeyAssertionOptions()
            let result = try await auth.finalizePasskeySignIn(
                with: Self.assert(
                    syncedKey, signInOptions, userID: options.userID, flags: Self.up | Self.uv | Self.synced))
            #expect(result.user.uid == user.uid)
            try auth.signOut()
        }
        var signInOptions = try await auth.passkeyAssertionOptions()
        _ = try await auth.finalizePasskeySignIn(
            with: Self.assert(deviceKey, signInOptions, userID: deviceOptions.userID, signCount: 5))
        try auth.signOut()
        signInOptions = try await auth.passkeyAssertionOptions()
        await Self.expectCode(.invalidAuthenticatorResponse) {
            _ = try await auth.finalizePasskeySignIn(
                with: Self.assert(deviceKey, signInOptions, userID: deviceOptions.userID, signCount: 3))
        }
        #expect(auth.currentUser == nil)
    }

    /// `--emulator` answers as the Auth Emulator's mock (rp `localhost`, the uid as user handle, nothing verified):
    /// the same SDK calls work against it.
    @Test func worksAgainstTheEmulator() async throws {
        let server = try await TestServer(emulator: true)
        defer { server.stop() }
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "correct horse").user
        let options = try await user.passkeyCreationOptions(withName: "Emulated")
        #expect(options.relyingPartyID == "localhost")
        #expect(options.userID == Data(user.uid.utf8))
        let authenticator = Self.newAuthenticator()
        _ = try await user.finalizePasskeyEnrollment(with: Self.register(authenticator, options))
        #expect(user.enrolledPasskeys?.map(\.name) == ["Emulated"])
        try auth.signOut()
        let signInOptions = try await auth.passkeyAssertionOptions()
        let result = try await auth.finalizePasskeySignIn(
            with: Self.assert(authenticator, signInOptions, userID: options.userID))
        #expect(result.user.uid == user.uid)
    }
}
