// The provider ids and sign-in method names FirebaseAuth exports as globals (from its Objective-C
// headers), for code that predates the `…AuthProvider.id` constants.

public let EmailAuthProviderID = AuthProviderID.email.rawValue
/// The sign-in method `fetchSignInMethods(forEmail:)` reports for e-mail link accounts.
public let EmailLinkAuthSignInMethod = "emailLink"
public let EmailPasswordAuthSignInMethod = "password"
public let FacebookAuthProviderID = AuthProviderID.facebook.rawValue
public let FacebookAuthSignInMethod = AuthProviderID.facebook.rawValue
public let GameCenterAuthProviderID = AuthProviderID.gameCenter.rawValue
public let GameCenterAuthSignInMethod = AuthProviderID.gameCenter.rawValue
public let GitHubAuthProviderID = AuthProviderID.gitHub.rawValue
public let GitHubAuthSignInMethod = AuthProviderID.gitHub.rawValue
public let GoogleAuthProviderID = AuthProviderID.google.rawValue
public let GoogleAuthSignInMethod = AuthProviderID.google.rawValue
public let PhoneAuthProviderID = AuthProviderID.phone.rawValue
public let PhoneAuthSignInMethod = AuthProviderID.phone.rawValue
public let TwitterAuthProviderID = AuthProviderID.twitter.rawValue
public let TwitterAuthSignInMethod = AuthProviderID.twitter.rawValue
