import Foundation

/// One account, as the store keeps it.
///
/// The e-mail is stored lower-cased; uniqueness is per project. The password hash is
/// an encoded `PasswordHash` that carries its own parameters.
public struct UserRecord: Sendable, Equatable {
    public var projectID: String
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var passwordHash: String?
    public var passwordUpdatedAt: Date?
    /// Tokens issued (auth_time) before this second are no longer honoured.
    public var validSince: Date
    public var disabled: Bool
    public var createdAt: Date
    public var lastLoginAt: Date?
    public var lastRefreshAt: Date?
    /// Custom claims as JSON object text, merged into every ID token.
    public var customClaims: String?
    /// Set for users created by signing in with a custom token.
    public var customAuth: Bool
    /// Links to federated identity providers (google.com, apple.com, …).
    public var providers: [ProviderUserInfo]
    /// Second factors (SMS and TOTP); stored as the `mfa_info` column.
    public var mfaEnrollments: [MFAEnrollment]
    /// Signed in with an e-mail link at least once (createAuthUri then lists `emailLink`).
    public var emailLinkSignIn: Bool = false
    /// The address the account had before its first e-mail change (Firebase's `initialEmail`).
    public var initialEmail: String?
    /// The user's handle at a provider (Firebase's `screenName`, from a sign-up's `screen_name`).
    public var screenName: String?
    /// WebAuthn credentials, from `passkey_credentials`.
    public var passkeys: [PasskeyCredential] = []
    /// Bumped by every stored update; an update based on an older version is refused,
    /// so two concurrent changes cannot silently undo each other.
    public var version: Int64

    public init(
        projectID: String, uid: String, email: String? = nil, emailVerified: Bool = false,
        displayName: String? = nil, photoURL: String? = nil, phoneNumber: String? = nil,
        passwordHash: String? = nil, passwordUpdatedAt: Date? = nil, validSince: Date,
        disabled: Bool = false, createdAt: Date, lastLoginAt: Date? = nil, lastRefreshAt: Date? = nil,
        customClaims: String? = nil, customAuth: Bool = false, providers: [ProviderUserInfo] = [],
        mfaEnrollments: [MFAEnrollment] = [], version: Int64 = 1
    ) {
        self.projectID = projectID
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.passwordHash = passwordHash
        self.passwordUpdatedAt = passwordUpdatedAt
        self.validSince = validSince
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.lastRefreshAt = lastRefreshAt
        self.customClaims = customClaims
        self.customAuth = customAuth
        self.providers = providers
        self.mfaEnrollments = mfaEnrollments
        self.version = version
    }

    /// An account with no way to sign in again but its refresh token.
    public var isAnonymous: Bool {
        email == nil && passwordHash == nil && phoneNumber == nil && providers.isEmpty && !customAuth
            && passkeys.isEmpty
    }

    /// Every provider the user can sign in with, as Firebase lists them in `providerUserInfo`
    /// and in the ID token's `firebase.identities`.
    public var allProviderInfo: [ProviderUserInfo] {
        var all: [ProviderUserInfo] = []
        // An e-mail link account has the password provider too, as in Firebase.
        if let email, passwordHash != nil || emailLinkSignIn {
            all.append(
                ProviderUserInfo(
                    providerID: ProviderID.password, rawID: email, federatedID: email, email: email,
                    displayName: displayName, photoURL: photoURL))
        }
        if let phoneNumber {
            all.append(ProviderUserInfo(providerID: ProviderID.phone, rawID: phoneNumber, phoneNumber: phoneNumber))
        }
        return all + providers
    }
}
