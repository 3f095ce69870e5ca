import Foundation

/// What a sign-in, link or re-authentication returns.
public final class AuthDataResult: Sendable {
    public let user: User
    /// The provider, whether the account is new, and the profile the provider gave.
    public let additionalUserInfo: AdditionalUserInfo?
    /// The provider's credential as the server returned it (OAuth sign-ins only).
    public let credential: OAuthCredential?

    init(user: User, additionalUserInfo: AdditionalUserInfo?, credential: OAuthCredential? = nil) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
    }
}

/// Sign-in facts that are not part of the user: the provider used, whether the account was just
/// created, and the provider's raw profile.
public final class AdditionalUserInfo: Sendable {
    public let providerID: String
    public let isNewUser: Bool
    public let username: String?
    private let rawProfile: JSON?

    /// The provider's user info (`rawUserInfo`), as FirebaseAuth types it.
    public var profile: [String: Any]? { rawProfile?.foundationValue as? [String: Any] }

    init(providerID: String, isNewUser: Bool, username: String? = nil, profile: JSON? = nil) {
        self.providerID = providerID
        self.isNewUser = isNewUser
        self.username = username
        self.rawProfile = profile
    }

    /// From a `signInWithIdp` answer, whose `rawUserInfo` is a JSON object or a string holding one.
    convenience init(idpResponse r: JSON, providerID: String) {
        var profile = r["rawUserInfo"]
        if let text = profile?.string { profile = JSON.parse(Data(text.utf8)) }
        self.init(
            providerID: r["providerId"]?.string ?? providerID, isNewUser: r["isNewUser"]?.bool ?? false,
            username: r["screenName"]?.string ?? r["username"]?.string, profile: profile)
    }
}
