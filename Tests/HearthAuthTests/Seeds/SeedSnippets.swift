// The Swift snippets of ../shared/seeds, one type per seed document, changed only as noted:
//   • `import FirebaseAuth` / `import FirebaseCore` → `import HearthAuth`; `import CryptoKit` → swift-crypto's
//     `Crypto` where CryptoKit is missing (Linux);
//   • lines that need Apple UI frameworks (AuthenticationServices, UIKit, SwiftUI, the Facebook SDK) are
//     dropped; the values they produced (Apple's ID token and name, Facebook's tokens, a table row) come in
//     as parameters instead;
//   • the enclosing classes are `@MainActor`, as the UIViewControllers they come from are;
//   • `// FIX:` marks the few lines that do not compile against FirebaseAuth either, and how they were fixed;
//     `// FIX (warning only):` marks the methods marked deprecated because the seed calls a deprecated API there.
// SeedSnippetTests runs what can run against a live server.

import Foundation
import HearthAuth

#if canImport(CryptoKit)
    import CryptoKit
#else
    import Crypto
#endif

// MARK: - 000: Sign in with Apple

@MainActor final class Seed000AppleSignIn {
    // FIX: a file-scope `fileprivate var` in the seed; Swift 6 refuses global mutable state, so it is a property.
    // Unhashed nonce.
    fileprivate var currentNonce: String?
    var user: User? { Auth.auth().currentUser }
    var lastError: Error?
    var uiUpdates = 0

    private func randomNonceString(length: Int = 32) -> String {
        precondition(length > 0)
        var randomBytes = [UInt8](repeating: 0, count: length)
        let errorCode = SecRandomCopyBytes(kSecRandomDefault, randomBytes.count, &randomBytes)
        if errorCode != errSecSuccess {
            fatalError(
                "Unable to generate nonce. SecRandomCopyBytes failed with OSStatus \(errorCode)"
            )
        }

        let charset: [Character] =
            Array("0123456789ABCDEFGHIJKLMNOPQRSTUVXYZabcdefghijklmnopqrstuvwxyz-._")

        let nonce = randomBytes.map { byte in
            // Pick a random character from the set, wrapping around if needed.
            charset[Int(byte) % charset.count]
        }

        return String(nonce)
    }

    @available(iOS 13, *)
    private func sha256(_ input: String) -> String {
        let inputData = Data(input.utf8)
        let hashedData = SHA256.hash(data: inputData)
        let hashString = hashedData.compactMap {
            String(format: "%02x", $0)
        }.joined()

        return hashString
    }

    /// The ASAuthorization request lines are dropped; the nonce's hash is returned for the caller to send.
    @available(iOS 13, *)
    func startSignInWithAppleFlow() -> String {
        let nonce = randomNonceString()
        currentNonce = nonce
        return sha256(nonce)
    }

    /// `authorizationController(controller:didCompleteWithAuthorization:)` with Apple's identity token and
    /// name passed in instead of read from ASAuthorizationAppleIDCredential.
    func didCompleteWithAuthorization(idTokenString: String, fullName: PersonNameComponents?) {
        guard let nonce = currentNonce else {
            fatalError("Invalid state: A login callback was received, but no login request was sent.")
        }
        // Initialize a Firebase credential, including the user's full name.
        let credential = OAuthProvider.appleCredential(
            withIDToken: idTokenString,
            rawNonce: nonce,
            fullName: fullName)
        // Sign in with Firebase.
        Auth.auth().signIn(with: credential) { (authResult, error) in
            if error != nil {  // FIX: `if error {` in the seed; an optional is not a condition in Swift.
                // Error. If error.code == .MissingOrInvalidNonce, make sure
                // you're sending the SHA256-hashed nonce as a hex string with
                // your request to Apple.
                print(error!.localizedDescription)  // FIX: `error.` → `error!.` (optional)
                self.lastError = error
                return
            }
            // User is signed in to Firebase with Apple.
            // ...
        }
    }

    func reauthenticate(appleIdToken: String, rawNonce: String) {
        // Initialize a fresh Apple credential with Firebase.
        let credential = OAuthProvider.credential(
            withProviderID: "apple.com",
            IDToken: appleIdToken,
            rawNonce: rawNonce
        )
        // Reauthenticate current Apple user with fresh Apple credential.
        // FIX: `currentUser.` → `currentUser?.` (currentUser is optional in FirebaseAuth too)
        Auth.auth().currentUser?.reauthenticate(with: credential) { (authResult, error) in
            guard error != nil else { return }
            // Apple user successfully re-authenticated.
            // ...
        }
    }

    /// `AccessToken.current!.tokenString` (Facebook SDK) comes in as `facebookAccessToken`.
    func linkFacebook(facebookAccessToken: String) {
        // Initialize a Facebook credential with Firebase.
        let credential = FacebookAuthProvider.credential(
            withAccessToken: facebookAccessToken
        )
        // Assuming the current user is an Apple user linking a Facebook provider.
        // FIX: `currentUser.` → `currentUser?.`
        Auth.auth().currentUser?.link(with: credential) { (authResult, error) in
            // Facebook credential is linked to the current Apple user.
            // The user can now sign in with Facebook or Apple to the same Firebase
            // account.
            // ...
            self.lastError = error
        }
    }

    /// The ASAuthorization request lines are dropped.
    func deleteCurrentUser() {
        do {
            let nonce = try CryptoUtils.randomNonceString()
            currentNonce = nonce
            _ = CryptoUtils.sha256(nonce)  // was `request.nonce = CryptoUtils.sha256(nonce)`
        } catch {
            // In the unlikely case that nonce generation fails, show error view.
            displayError(error)
        }
    }

    /// The revocation half of the delegate callback, with Apple's authorization code passed in.
    func revokeAndDelete(authCodeString: String) {
        guard let _ = currentNonce else {
            fatalError("Invalid state: A login callback was received, but no login request was sent.")
        }
        Task {
            do {
                try await Auth.auth().revokeToken(withAuthorizationCode: authCodeString)
                try await user?.delete()
                self.updateUI()
            } catch {
                self.displayError(error)
            }
        }
    }

    func signOut() {
        let firebaseAuth = Auth.auth()
        do {
            try firebaseAuth.signOut()
        } catch let signOutError as NSError {
            print("Error signing out: %@", signOutError)
        }
    }

    func displayError(_ error: Error) { lastError = error }
    func updateUI() { uiUpdates += 1 }
}

// MARK: - 001: Phone number sign-in

@MainActor final class Seed001PhoneSignIn {
    var _user: User?
    var lastMessage: String?

    func sendCode(phoneNumber: String) {
        PhoneAuthProvider.provider().verifyPhoneNumber(phoneNumber, uiDelegate: nil) { (verificationID, error) in
            if let error = error {
                self.showMessagePrompt(error.localizedDescription)
                return
            }
            // Sign in using the verificationID and the code sent to the user
            // ...
            UserDefaults.standard.set(verificationID, forKey: "authVerificationID")
        }
    }

    func setLanguage() {
        // Change language code to french.
        Auth.auth().languageCode = "fr";
    }

    // FIX (warning only): the seed calls `signInAndRetrieveData`, deprecated in FirebaseAuth as in HearthAuth; this
    // method is marked deprecated so the call stays as written without a compiler warning (`PhoneSeedSteps`).
    @available(*, deprecated, message: "calls Auth.signInAndRetrieveData as the seed does")
    func signIn(verificationCode: String) {
        let verificationID = UserDefaults.standard.string(forKey: "authVerificationID")
        let credential = PhoneAuthProvider.provider().credential(
            withVerificationID: verificationID!,  // FIX: the seed passes the optional straight through
            verificationCode: verificationCode)
        Auth.auth().signInAndRetrieveData(with: credential) { (authResult, error) in
            if let error = error {
                // ...
                self.showMessagePrompt(error.localizedDescription)
                return
            }
            // User is signed in
            // ...
            self._user = authResult?.user
        }
    }

    // FIX (warning only): as `signIn(verificationCode:)`.
    @available(*, deprecated, message: "calls Auth.signInAndRetrieveData as the seed does")
    func integrationTest() {
        let phoneNumber = "+16505554567"

        // This test verification code is specified for the given test phone number in the developer console.
        let testVerificationCode = "123456"

        Auth.auth().settings?.isAppVerificationDisabledForTesting = true  // FIX: `TRUE` is Objective-C
        PhoneAuthProvider.provider().verifyPhoneNumber(phoneNumber, uiDelegate: nil) {
            verificationID, error in
            if error != nil {  // FIX: `if (error) {`
                // Handles error
                self.handleError(error!)
                return
            }
            let credential = PhoneAuthProvider.provider().credential(
                withVerificationID: verificationID ?? "",
                verificationCode: testVerificationCode)
            Auth.auth().signInAndRetrieveData(with: credential) { authData, error in
                if error != nil {  // FIX: `if (error) {`
                    // Handles error
                    self.handleError(error!)
                    return
                }
                self._user = authData?.user  // FIX: `authData.user` (optional)
            }  // FIX: `}];` (Objective-C)
        }  // FIX: `}];`
    }

    func showMessagePrompt(_ message: String) { lastMessage = message }
    func handleError(_ error: Error) { lastMessage = error.localizedDescription }
}

/// Seed 001's steps that call the deprecated `signInAndRetrieveData`, for SeedSnippetTests: called through this
/// protocol, whose requirements are not deprecated, they run without a deprecation warning at every call.
@MainActor protocol PhoneSeedSteps {
    func signIn(verificationCode: String)
    func integrationTest()
}

extension Seed001PhoneSignIn: PhoneSeedSteps {}

// MARK: - 002: a SwiftUI view model for Sign in with Apple

/// `NSObject, ObservableObject, ASAuthorizationControllerDelegate, …` and the UIWindow, Firebase
/// Database and ASAuthorization lines are dropped.
@MainActor final class Seed002AppleIDViewModel {
    fileprivate var currentNonce: String?

    func startSignInWithAppleFlow() -> String {
        let nonce = randomNonceString()
        currentNonce = nonce
        return sha256(nonce)  // was `request.nonce = sha256(nonce)`
    }

    /// The delegate callback, with Apple's token and name passed in.
    func didComplete(idTokenString: String, fullName: PersonNameComponents?) {
        guard let nonce = currentNonce else {
            fatalError("Invalid state: A login callback was received, but no login request was sent.")
        }

        // Initialize a Firebase credential.
        let credential = OAuthProvider.credential(
            withProviderID: "apple.com",
            idToken: idTokenString,
            rawNonce: nonce)

        // Sign in with Firebase.
        Auth.auth().signIn(with: credential) { (authResult, error) in
            if (error != nil) {
                print(error!.localizedDescription)
                return
            }

            // 사용자의 이름은 애플 계정으로 처음 로그인 했을 때만 받아옴.
            if fullName?.description.isEmpty != true {
                let userName = "\(fullName?.givenName ?? "Unknown") \(fullName?.familyName ?? "")"
                Auth.auth().currentUser?.setValue(userName, forKey: "displayName")
            } else {  // 두번째로그인부터는 데이터베이스에서 이름 불러옴.
                let user = Auth.auth().currentUser
                let email: String = user?.email ?? ""  // FIX: `var email:String = user?.email?` does not parse
                _ = email

                // TODO retrieve username from DB and set it to Auth
            }
        }
    }

    private func sha256(_ input: String) -> String {
        let inputData = Data(input.utf8)
        let hashedData = SHA256.hash(data: inputData)
        let hashString = hashedData.compactMap {
            String(format: "%02x", $0)
        }.joined()

        return hashString
    }

    private func randomNonceString(length: Int = 32) -> String {
        precondition(length > 0)
        let charset: [Character] =
            Array("0123456789ABCDEFGHIJKLMNOPQRSTUVXYZabcdefghijklmnopqrstuvwxyz-._")
        var result = ""
        var remainingLength = length

        while remainingLength > 0 {
            let randoms: [UInt8] = (0..<16).map { _ in
                var random: UInt8 = 0
                let errorCode = SecRandomCopyBytes(kSecRandomDefault, 1, &random)
                if errorCode != errSecSuccess {
                    fatalError(
                        "Unable to generate nonce. SecRandomCopyBytes failed with OSStatus \(errorCode)"
                    )
                }
                return random
            }

            randoms.forEach { random in
                if remainingLength == 0 {
                    return
                }

                if random < charset.count {
                    result.append(charset[Int(random)])
                    remainingLength -= 1
                }
            }
        }

        return result
    }
}

// MARK: - 003: Facebook Login, classic and Limited, and a multi-factor sign-in

@MainActor final class Seed003FacebookLogin {
    var currentNonce: String?
    let isMFAEnabled = true
    var messages: [String] = []
    var textInputs: [String] = []

    /// `FirebaseApp.configure()` reads GoogleService-Info.plist; Hearth's one configuration call names
    /// the server instead. This is the only line an app's set-up changes.
    static func configure(options: HearthOptions) {
        HearthApp.configure(options: options)
    }

    /// `AccessToken.current!.tokenString` comes in as a parameter.
    func classicCredential(accessToken: String) -> AuthCredential {
        let credential =
            FacebookAuthProvider
            .credential(withAccessToken: accessToken)
        return credential
    }

    /// `AuthenticationToken.current?.tokenString` comes in as a parameter.
    func limitedLoginCredential(authenticationToken: String?) -> AuthCredential {
        // Initialize a Firebase credential.
        let idTokenString = authenticationToken
        let nonce = currentNonce
        let credential = OAuthProvider.credential(
            withProviderID: "facebook.com",
            idToken: idTokenString!,
            rawNonce: nonce)
        return credential
    }

    func signIn(with credential: AuthCredential) {
        Auth.auth().signIn(with: credential) { authResult, error in
            if let error = error {
                let authError = error as NSError
                if self.isMFAEnabled, authError.code == AuthErrorCode.secondFactorRequired.rawValue {  // FIX: `self.`
                    // The user is a multi-factor user. Second factor challenge is required.
                    let resolver =
                        authError
                        .userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
                    var displayNameString = ""
                    for tmpFactorInfo in resolver.hints {
                        displayNameString += tmpFactorInfo.displayName ?? ""
                        displayNameString += " "
                    }
                    self.showTextInputPrompt(
                        withMessage: "Select factor to sign in\n\(displayNameString)",
                        completionBlock: { userPressedOK, displayName in
                            var selectedHint: PhoneMultiFactorInfo?
                            for tmpFactorInfo in resolver.hints {
                                if displayName == tmpFactorInfo.displayName {
                                    selectedHint = tmpFactorInfo as? PhoneMultiFactorInfo
                                }
                            }
                            PhoneAuthProvider.provider()
                                .verifyPhoneNumber(
                                    with: selectedHint!, uiDelegate: nil,
                                    multiFactorSession: resolver
                                        .session
                                ) { verificationID, error in
                                    if error != nil {
                                        print(
                                            "Multi factor start sign in failed. Error: \(error.debugDescription)"
                                        )
                                    } else {
                                        self.showTextInputPrompt(
                                            withMessage: "Verification code for \(selectedHint?.displayName ?? "")",
                                            completionBlock: { userPressedOK, verificationCode in
                                                let credential: PhoneAuthCredential? = PhoneAuthProvider.provider()
                                                    .credential(
                                                        withVerificationID: verificationID!,
                                                        verificationCode: verificationCode!)
                                                let assertion: MultiFactorAssertion? =
                                                    PhoneMultiFactorGenerator
                                                    .assertion(with: credential!)
                                                resolver.resolveSignIn(with: assertion!) { authResult, error in
                                                    if error != nil {
                                                        print(
                                                            "Multi factor finanlize sign in failed. Error: \(error.debugDescription)"
                                                        )
                                                    } else {
                                                        // dropped (UIKit): self.navigationController?.popViewController(animated: true)
                                                    }
                                                }
                                            }
                                        )
                                    }
                                }
                        }
                    )
                } else {
                    self.showMessagePrompt(error.localizedDescription)
                    return
                }
                // ...
                return
            }
            // User is signed in
            // ...
        }
    }

    func signOut() {
        let firebaseAuth = Auth.auth()
        do {
            try firebaseAuth.signOut()
        } catch let signOutError as NSError {
            print("Error signing out: %@", signOutError)
        }
    }

    // The sample app's prompt helpers the snippet calls; here they answer from `textInputs`.
    func showTextInputPrompt(withMessage message: String, completionBlock: @escaping (Bool, String?) -> Void) {
        messages.append(message)
        completionBlock(!textInputs.isEmpty, textInputs.isEmpty ? nil : textInputs.removeFirst())
    }

    func showMessagePrompt(_ message: String) { messages.append(message) }
}

// MARK: - 004: the User object, profile changes, e-mail and password

@MainActor final class Seed004EmailAndProfile {
    var results: [String] = []

    func readCurrentUser() {
        let user = Auth.auth().currentUser
        if let user = user {
            let uid = user.uid
            let email = user.email
            let photoURL = user.photoURL
            results.append("\(uid) \(email ?? "-") \(photoURL?.absoluteString ?? "-")")
        }
    }

    /// `indexPath.row` (a UIKit extension) comes in as `row`; the `cell` lines are UIKit and dropped.
    func providerRow(_ row: Int) -> (String?, String?) {
        let userInfo = Auth.auth().currentUser?.providerData[row]
        // Provider-specific UID
        return (userInfo?.providerID, userInfo?.uid)
    }

    func updateDisplayName(_ displayName: String) {
        let changeRequest = Auth.auth().currentUser?.createProfileChangeRequest()
        changeRequest?.displayName = displayName
        changeRequest?.commitChanges { error in
            // ...
            self.results.append("committed \(error == nil)")
        }
    }

    func createUser(email: String, password: String) {
        Auth.auth().createUser(withEmail: email, password: password) { authResult, error in
            // ...
            self.results.append("created \(authResult?.user.uid ?? "-")")
        }
    }

    func signIn(email: String, password: String) {
        Auth.auth().signIn(withEmail: email, password: password) { [weak self] authResult, error in
            guard let strongSelf = self else { return }
            // ...
            strongSelf.results.append("signed in \(authResult?.user.uid ?? "-")")
        }
    }

    func signInWithApple(idTokenString: String, nonce: String) {
        // Initialize a Firebase credential.
        let credential = OAuthProvider.credential(
            withProviderID: "apple.com",
            IDToken: idTokenString,
            rawNonce: nonce)
        // Sign in with Firebase.
        Auth.auth().signIn(with: credential) { (authResult, error) in
            if error != nil {  // FIX: `if error {`
                // Error. If error.code == .MissingOrInvalidNonce, make sure
                // you're sending the SHA256-hashed nonce as a hex string with
                // your request to Apple.
                print(error!.localizedDescription)
                return
            }
            // User is signed in to Firebase with Apple.
            // ...
        }
    }

    func signOut() {
        let firebaseAuth = Auth.auth()
        do {
            try firebaseAuth.signOut()
        } catch let signOutError as NSError {
            print("Error signing out: %@", signOutError)
        }
    }
}
