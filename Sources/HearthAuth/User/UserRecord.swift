import Foundation

/// Everything known about a signed-in user: the account as the server last described it and the
/// user's tokens. This is what the user store persists.
struct UserRecord: Sendable, Codable, Equatable {
    var uid: String
    var email: String?
    var displayName: String?
    var photoURL: URL?
    var phoneNumber: String?
    var emailVerified: Bool
    var isAnonymous: Bool
    var providers: [ProviderUserInfo]
    var metadata: UserMetadata
    var tenantID: String?
    var tokens: TokenSet
    /// `mfaInfo` as `accounts:lookup` shows it; optional so records persisted before it still load.
    var mfaInfo: [JSON]?
    /// `passkeyInfo` as `accounts:lookup` shows it; optional so records persisted before it still load.
    var passkeyInfo: [JSON]?

    init(tokens: TokenSet, lookup user: JSON, isAnonymous: Bool, tenantID: String?) {
        uid = user["localId"]?.string ?? ""
        self.tokens = tokens
        self.isAnonymous = isAnonymous
        self.tenantID = tenantID
        email = nil
        emailVerified = false
        providers = []
        metadata = UserMetadata(creationDate: nil, lastSignInDate: nil)
        update(lookup: user)
    }

    /// Takes the account fields of an `accounts:lookup` user.
    mutating func update(lookup user: JSON) {
        email = user["email"]?.string
        displayName = user["displayName"]?.string
        photoURL = user["photoUrl"]?.string.flatMap(URL.init(string:))
        phoneNumber = user["phoneNumber"]?.string
        emailVerified = user["emailVerified"]?.bool ?? false
        providers = (user["providerUserInfo"]?.array ?? []).compactMap(ProviderUserInfo.init(lookup:))
        mfaInfo = user["mfaInfo"]?.array
        passkeyInfo = user["passkeyInfo"]?.array ?? []
        func date(_ key: String) -> Date? {
            user[key]?.double.map { Date(timeIntervalSince1970: $0 / 1000) }
        }
        metadata = UserMetadata(creationDate: date("createdAt"), lastSignInDate: date("lastLoginAt"))
        // An account with any way back in is no longer anonymous.
        if !providers.isEmpty || email != nil || user["passwordHash"] != nil || passkeyInfo?.isEmpty == false {
            isAnonymous = false
        }
    }
}
