// FirebaseAuth's public Swift API, used the way its documentation (firebase.google.com/docs/auth/ios)
// and its sample app (firebase-ios-sdk/FirebaseAuth/Tests/SampleSwift) use it, with only the import and
// `HearthApp.configure` changed. This file is the parity check: it fails to compile if a name, label,
// optionality or async/completion form drifts from FirebaseAuth's. The functions are not run (most need
// a device or a live provider); the test at the end runs the parts that need neither.
//
// Not here, and provided by the mfa and email branches: `MultiFactor`, `TOTPMultiFactorGenerator`,
// `TOTPSecret`, `PhoneMultiFactorID`, `TOTPMultiFactorID`; `ActionCodeSettings`, `ActionCodeInfo`,
// `ActionCodeURL`, `checkActionCode`, `sendSignInLink`, `isSignIn(withEmailLink:)`,
// `signIn(withEmail:link:)`, `EmailAuthProvider.credential(withEmail:link:)` and the `actionCodeSettings:`
// forms. UIKit-only members (`scene(_:openURLContexts:)`, `application(_:…)`) compile only on Apple
// platforms, in the `#if` at the end.

import Foundation
import HearthAuth
import Testing

#if canImport(UIKit)
    import UIKit
#endif
#if canImport(AuthenticationServices)
    import AuthenticationServices
#endif

@MainActor
enum FirebaseAPIUsage {
    // MARK: Auth

    static func configuration() {
        HearthApp.configure(options: HearthOptions(apiKey: "key", projectID: "project", endpoint: nil))
        let auth: Auth = Auth.auth()
        let other: Auth = Auth.auth(app: HearthApp.app()!)
        _ = other.app?.name
        let app: HearthApp? = auth.app
        _ = app
        auth.useEmulator(withHost: "127.0.0.1", port: 9099)
        auth.languageCode = "fr"
        auth.useAppLanguage()
        auth.tenantID = "tenant-1"
        auth.customAuthDomain = "auth.example.com"
        Auth.auth().settings?.isAppVerificationDisabledForTesting = true
        Auth.auth().settings?.appVerificationDisabledForTesting = false
        auth.settings = AuthSettings()
        auth.shareAuthStateAcrossDevices = false
        let group: String? = auth.userAccessGroup
        _ = group
        do {
            try auth.useUserAccessGroup("TEAMID.com.example.shared")
            let stored: User? = try auth.getStoredUser(forAccessGroup: "TEAMID.com.example.shared")
            _ = stored
        } catch {
            print("Error changing user access group: \(error.localizedDescription)")
        }
        let user: User? = auth.currentUser
        _ = user
        do {
            try Auth.auth().signOut()
        } catch let signOutError as NSError {
            print("Error signing out: %@", signOutError)
        }
    }

    static func listeners() {
        let handle = Auth.auth().addStateDidChangeListener { auth, user in
            _ = (auth, user?.uid)
        }
        Auth.auth().removeStateDidChangeListener(handle)
        let tokenHandle: IDTokenDidChangeListenerHandle = Auth.auth().addIDTokenDidChangeListener { _, user in
            _ = user
        }
        Auth.auth().removeIDTokenDidChangeListener(tokenHandle)
        let stateHandle: AuthStateDidChangeListenerHandle = Auth.auth().addStateDidChangeListener { _, _ in }
        _ = stateHandle
        let observer = NotificationCenter.default.addObserver(
            forName: Auth.authStateDidChangeNotification, object: nil, queue: .main
        ) { _ in }
        NotificationCenter.default.removeObserver(observer)
        NotificationCenter.default.post(name: .AuthStateDidChange, object: nil)
        let name: NSNotification.Name = NSNotification.Name.AuthStateDidChange
        _ = name
    }

    static func sequences() async {
        let states: Auth.AuthStateChangesSequence = Auth.auth().authStateChanges
        for await user in states {
            _ = user
            break
        }
        let tokens: Auth.IDTokenChangesSequence = Auth.auth().idTokenChanges
        var iterator: Auth.IDTokenChangesSequence.Iterator = tokens.makeAsyncIterator()
        _ = await iterator.next()
        _ = Auth.AuthStateChangesSequence(Auth.auth())
        _ = Auth.IDTokenChangesSequence(Auth.auth())
        let stateIterator: Auth.AuthStateChangesSequence.Iterator? = nil
        _ = stateIterator
    }

    // MARK: Signing in, async

    static func signInAsync(email: String, password: String, token: String) async throws {
        let created: AuthDataResult = try await Auth.auth().createUser(withEmail: email, password: password)
        _ = created.user.uid
        let result = try await Auth.auth().signIn(withEmail: email, password: password)
        let info: AdditionalUserInfo? = result.additionalUserInfo
        _ = (info?.isNewUser, info?.newUser(), info?.providerID, info?.profile, info?.username)
        let oauth: OAuthCredential? = result.credential
        _ = (oauth?.idToken, oauth?.accessToken, oauth?.secret)
        _ = try await Auth.auth().signInAnonymously()
        _ = try await Auth.auth().signIn(withCustomToken: token)
        _ = try await Auth.auth().signIn(with: EmailAuthProvider.credential(withEmail: email, password: password))
        let methods: [String] = try await Auth.auth().fetchSignInMethods(forEmail: email)
        _ = methods
        try await Auth.auth().sendPasswordReset(withEmail: email)
        let resetEmail: String = try await Auth.auth().verifyPasswordResetCode("code")
        _ = resetEmail
        try await Auth.auth().confirmPasswordReset(withCode: "code", newPassword: password)
        try await Auth.auth().applyActionCode("code")
        try await Auth.auth().revokeToken(withAuthorizationCode: "code")
        try await Auth.auth().updateCurrentUser(result.user)
        try await Auth.auth().updateCurrentUser(Auth.auth().currentUser)
        let isCurrent: Bool = Auth.auth().currentUser == result.user
        _ = (isCurrent, Set([result.user]))
        try await Auth.auth().initializeRecaptchaConfig()
    }

    // MARK: Signing in, completion handlers

    static func signInWithCompletions(email: String, password: String) {
        Auth.auth().createUser(withEmail: email, password: password) { authResult, error in
            _ = (authResult?.user.email, error)
        }
        Auth.auth().signIn(withEmail: email, password: password) { [weak auth = Auth.auth()] authResult, error in
            guard let auth, error == nil else { return }
            _ = (auth, authResult?.additionalUserInfo?.isNewUser)
        }
        Auth.auth().signInAnonymously { authResult, _ in
            guard let user = authResult?.user else { return }
            _ = (user.isAnonymous, user.anonymous(), user.uid)
        }
        Auth.auth().signIn(withCustomToken: "token") { _, _ in }
        Auth.auth().signIn(with: EmailAuthProvider.credential(withEmail: email, password: password)) { _, _ in }
        Auth.auth().fetchSignInMethods(forEmail: email) { methods, _ in _ = methods }
        Auth.auth().sendPasswordReset(withEmail: email) { error in _ = error }
        Auth.auth().verifyPasswordResetCode("code") { email, _ in _ = email }
        Auth.auth().confirmPasswordReset(withCode: "code", newPassword: password) { _ in }
        Auth.auth().applyActionCode("code") { _ in }
        Auth.auth().revokeToken(withAuthorizationCode: "code") { _ in }
        Auth.auth().initializeRecaptchaConfig { _ in }
        if let user = Auth.auth().currentUser {
            Auth.auth().updateCurrentUser(user) { _ in }
        }
        Auth.auth().updateCurrentUser(Auth.auth().currentUser) { error in _ = error }
    }

    // MARK: Providers

    static func providers(idToken: String, accessToken: String, rawNonce: String) {
        let google = GoogleAuthProvider.credential(withIDToken: idToken, accessToken: accessToken)
        let facebook = FacebookAuthProvider.credential(withAccessToken: accessToken)
        let github = GitHubAuthProvider.credential(withToken: accessToken)
        let twitter = TwitterAuthProvider.credential(withToken: accessToken, secret: "secret")
        let apple = OAuthProvider.appleCredential(withIDToken: idToken, rawNonce: rawNonce, fullName: nil)
        let appleNoNonce = OAuthProvider.credential(
            providerID: AuthProviderID.apple, idToken: idToken, rawNonce: rawNonce)
        let oidc = OAuthProvider.credential(
            providerID: .custom("oidc.example"), idToken: idToken, accessToken: accessToken)
        let withIDToken = OAuthProvider.credential(providerID: .google, idToken: idToken)
        let withAccess = OAuthProvider.credential(providerID: .gitHub, accessToken: accessToken)
        let legacy = OAuthProvider.credential(withProviderID: "oidc.example", idToken: idToken, rawNonce: nil)
        let credentials: [AuthCredential] = [
            google, facebook, github, twitter, apple, appleNoNonce, oidc, withIDToken, withAccess, legacy,
        ]
        _ = credentials.map(\.provider)
        let ids: [String] = [
            EmailAuthProvider.id, GoogleAuthProvider.id, FacebookAuthProvider.id, GitHubAuthProvider.id,
            TwitterAuthProvider.id, PhoneAuthProvider.id, GameCenterAuthProvider.id, OAuthProvider.id,
            AuthProviderID.email.rawValue, AuthProviderID.phone.rawValue, AuthProviderID.facebook.rawValue,
            AuthProviderID.gameCenter.rawValue, AuthProviderID.gitHub.rawValue, AuthProviderID.google.rawValue,
            EmailAuthProviderID, EmailLinkAuthSignInMethod, EmailPasswordAuthSignInMethod, FacebookAuthProviderID,
            FacebookAuthSignInMethod, GameCenterAuthProviderID, GameCenterAuthSignInMethod, GitHubAuthProviderID,
            GitHubAuthSignInMethod, GoogleAuthProviderID, GoogleAuthSignInMethod, PhoneAuthProviderID,
            PhoneAuthSignInMethod, TwitterAuthProviderID, TwitterAuthSignInMethod,
        ]
        _ = ids
    }

    static func webSignIn(uiDelegate: (any AuthUIDelegate)?) async throws {
        let provider = OAuthProvider(providerID: "github.com")
        provider.scopes = ["user:email"]
        provider.customParameters = ["allow_signup": "false"]
        _ = OAuthProvider(providerID: AuthProviderID.gitHub)
        _ = OAuthProvider(providerID: "microsoft.com", auth: Auth.auth())
        _ = OAuthProvider.provider(providerID: AuthProviderID.gitHub)
        _ = OAuthProvider.provider(providerID: AuthProviderID.google, auth: Auth.auth())
        _ = provider.providerID
        provider.getCredentialWith(nil) { credential, error in
            if error != nil { return }
            if let credential {
                Auth.auth().signIn(with: credential) { authResult, _ in
                    guard let oauthCredential = authResult?.credential else { return }
                    _ = (oauthCredential.accessToken, oauthCredential.idToken)
                }
            }
        }
        let credential: AuthCredential = try await provider.credential(with: uiDelegate)
        _ = credential
        _ = try await Auth.auth().signIn(with: provider, uiDelegate: uiDelegate)
        Auth.auth().signIn(with: provider, uiDelegate: nil) { _, _ in }
        let federated: any FederatedAuthProvider = provider
        _ = federated
        if let user = Auth.auth().currentUser {
            _ = try await user.link(with: provider, uiDelegate: nil)
            _ = try await user.reauthenticate(with: provider, uiDelegate: nil)
            user.link(with: provider, uiDelegate: nil) { _, _ in }
            user.reauthenticate(with: provider, uiDelegate: nil) { _, _ in }
        }
    }

    static func gameCenter() async throws {
        GameCenterAuthProvider.getCredential { credential, error in
            if let error {
                _ = error
                return
            }
            guard let credential else { return }
            Auth.auth().signIn(with: credential) { _, _ in }
        }
        let credential = try await GameCenterAuthProvider.getCredential()
        _ = try await Auth.auth().signIn(with: credential)
    }

    // MARK: Phone

    static func phone(phoneNumber: String, code: String, uiDelegate: (any AuthUIDelegate)?) async throws {
        PhoneAuthProvider.provider().verifyPhoneNumber(phoneNumber, uiDelegate: nil) { verificationID, error in
            if let error {
                _ = error.localizedDescription
                return
            }
            UserDefaults.standard.set(verificationID, forKey: "authVerificationID")
        }
        let verificationID = try await PhoneAuthProvider.provider().verifyPhoneNumber(
            phoneNumber, uiDelegate: uiDelegate)
        _ = try await PhoneAuthProvider.provider(auth: Auth.auth()).verifyPhoneNumber(phoneNumber)
        let credential: PhoneAuthCredential = PhoneAuthProvider.provider().credential(
            withVerificationID: verificationID, verificationCode: code)
        _ = try await Auth.auth().signIn(with: credential)
        if let user = Auth.auth().currentUser {
            try await user.updatePhoneNumber(credential)
            user.updatePhoneNumber(credential) { error in _ = error }
        }
        // App verification by silent push (AppDelegate forwarding, as FirebaseAuth's guide shows).
        let deviceToken = Data([0xAB, 0xCD])
        Auth.auth().setAPNSToken(deviceToken, type: AuthAPNSTokenType.prod)
        Auth.auth().setAPNSToken(deviceToken, type: .sandbox)
        Auth.auth().setAPNSToken(deviceToken, type: .unknown)
        Auth.auth().apnsToken = deviceToken
        let token: Data? = Auth.auth().apnsToken
        _ = token
        let notification: [AnyHashable: Any] = [:]
        if Auth.auth().canHandleNotification(notification) { return }
        if Auth.auth().canHandle(URL(string: "app://callback")!) { return }
    }

    // MARK: User

    static func userAsync(user: User, email: String, password: String) async throws {
        _ = (user.uid, user.email, user.displayName, user.photoURL, user.phoneNumber, user.providerID)
        _ = (user.isAnonymous, user.isEmailVerified, user.emailVerified(), user.tenantID, user.refreshToken)
        let metadata: UserMetadata = user.metadata
        _ = (metadata.creationDate, metadata.lastSignInDate)
        for info: UserInfo in user.providerData {
            _ = (info.providerID, info.uid, info.displayName, info.photoURL, info.email, info.phoneNumber)
        }
        let idToken: String = try await user.getIDToken()
        _ = try await user.getIDToken(forcingRefresh: true)
        _ = try await user.idTokenForcingRefresh(true)
        let result: AuthTokenResult = try await user.getIDTokenResult()
        _ = try await user.getIDTokenResult(forcingRefresh: true)
        let secondFactor: String = result.signInSecondFactor
        _ = (result.token, result.expirationDate, result.authDate, result.issuedAtDate, result.signInProvider)
        _ = (result.claims["admin"] as? Bool, secondFactor, idToken)
        try await user.reload()
        let change = user.createProfileChangeRequest()
        change.displayName = "Ada"
        change.photoURL = URL(string: "https://example.com/ada.png")
        try await change.commitChanges()
        try await user.updatePassword(to: password)
        try await user.updateEmail(to: email)
        try await user.sendEmailVerification()
        try await user.sendEmailVerification(beforeUpdatingEmail: email)
        let credential = EmailAuthProvider.credential(withEmail: email, password: password)
        _ = try await user.reauthenticate(with: credential)
        _ = try await user.link(with: credential)
        let unlinked: User = try await user.unlink(fromProvider: EmailAuthProvider.id)
        _ = unlinked
        try await user.delete()
    }

    static func userWithCompletions(user: User, email: String, password: String) {
        user.getIDToken { idToken, error in _ = (idToken, error) }
        user.getIDTokenForcingRefresh(true) { idToken, _ in _ = idToken }
        user.getIDTokenResult { result, _ in _ = result?.claims }
        user.getIDTokenResult(forcingRefresh: true) { result, _ in _ = result?.token }
        user.reload { _ in }
        user.createProfileChangeRequest().commitChanges { _ in }
        user.updatePassword(to: password) { _ in }
        user.updateEmail(to: email) { _ in }
        user.sendEmailVerification { _ in }
        let credential = EmailAuthProvider.credential(withEmail: email, password: password)
        user.reauthenticate(with: credential) { _, _ in }
        user.link(with: credential) { _, _ in }
        user.unlink(fromProvider: EmailAuthProvider.id) { _, _ in }
        user.delete { error in
            if let error = error as NSError? {
                switch AuthErrorCode(rawValue: error.code) {
                case .requiresRecentLogin: break
                default: break
                }
            }
        }
    }

    // MARK: Errors

    static func errors(_ error: Error) {
        let nsError = error as NSError
        guard nsError.domain == AuthErrorDomain else { return }
        if nsError.code == AuthErrorCode.secondFactorRequired.rawValue {
            _ = nsError.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
        }
        if nsError.code == AuthErrorCode.accountExistsWithDifferentCredential.rawValue {
            _ = nsError.userInfo[AuthErrorUserInfoEmailKey] as? String
            _ = nsError.userInfo[AuthErrorUserInfoUpdatedCredentialKey] as? AuthCredential
        }
        _ = nsError.userInfo[AuthErrorUserInfoNameKey] as? String
        _ = [AuthErrors.domain, AuthErrors.userInfoNameKey, AuthErrors.userInfoEmailKey]
        _ = [AuthErrors.userInfoUpdatedCredentialKey, AuthErrors.userInfoMultiFactorResolverKey]
        let operations: [ActionCodeOperation] = [
            .unknown, .passwordReset, .verifyEmail, .recoverEmail, .emailLink, .verifyAndChangeEmail,
            .revertSecondFactorAddition,
        ]
        _ = operations
    }

    // MARK: Passkeys (firebase-ios-sdk's `passkey-sv` branch; the platform requests compile on Apple platforms only)

    static func passkeys(user: User, credentialID: String) async throws {
        let passkeys: [PasskeyInfo]? = user.enrolledPasskeys
        for passkey in passkeys ?? [] {
            let name: String? = passkey.name
            let id: String? = passkey.credentialID
            _ = (name, id)
        }
        try await user.unenrollPasskey(withCredentialID: credentialID)
        _ = [AuthErrorCode.invalidAuthenticatorResponse, .missingPasskeyEnrollment]
    }

    #if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
        static func platformPasskeys(
            user: User, registration: ASAuthorizationPlatformPublicKeyCredentialRegistration,
            assertion: ASAuthorizationPlatformPublicKeyCredentialAssertion
        ) async throws {
            let create: ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest =
                try await user.startPasskeyEnrollment(withName: "My iPhone")
            _ = create
            let enrolled: AuthDataResult =
                try await user.finalizePasskeyEnrollment(withPlatformCredential: registration)
            _ = enrolled
            let get: ASAuthorizationPlatformPublicKeyCredentialAssertionRequest =
                try await Auth.auth().startPasskeySignIn()
            _ = get
            let signedIn: AuthDataResult =
                try await Auth.auth().finalizePasskeySignIn(withPlatformCredential: assertion)
            _ = signedIn
        }
    #endif

    #if canImport(UIKit) && os(iOS)
        final class ViewController: UIViewController, AuthUIDelegate {}

        static func appDelegate(application: UIApplication, url: URL, scene: UIScene) {
            Auth.auth().application(application, didRegisterForRemoteNotificationsWithDeviceToken: Data())
            Auth.auth().application(application, didFailToRegisterForRemoteNotificationsWithError: URLError(.unknown))
            Auth.auth().application(application, didReceiveRemoteNotification: [:]) { _ in }
            _ = Auth.auth().application(application, open: url, options: [:])
            Auth.auth().scene(scene, openURLContexts: [])
        }
    #endif
}

@Suite("FirebaseAuth API parity")
struct FirebaseAPICompileTests {
    /// The constants and values that need no server, as FirebaseAuth defines them.
    @Test func constantsMatchFirebaseAuth() {
        #expect(OAuthProvider.id == "OAuth")
        #expect(GitHubAuthProvider.id == "github.com")
        #expect(TwitterAuthProvider.id == "twitter.com")
        #expect(GameCenterAuthProvider.id == "gc.apple.com")
        #expect(AuthProviderID.custom("oidc.x").rawValue == "oidc.x")
        #expect(AuthProviderID.gitHub == AuthProviderID.custom("github.com"))
        #expect(EmailLinkAuthSignInMethod == "emailLink")
        #expect(EmailPasswordAuthSignInMethod == "password")
        #expect(Auth.authStateDidChangeNotification.rawValue == "FIRAuthStateDidChangeNotification")
        #expect(NSNotification.Name.AuthStateDidChange == Auth.authStateDidChangeNotification)
        #expect(ActionCodeOperation.verifyAndChangeEmail.rawValue == 5)
        #expect(AuthAPNSTokenType.prod.rawValue == 2)
        let settings = AuthSettings()
        settings.isAppVerificationDisabledForTesting = true
        #expect(settings.appVerificationDisabledForTesting)
    }
}
