import Foundation

/// What one sign-in method knows about the user (an entry of `User.providerData`), and what the
/// `User` itself exposes.
public protocol UserInfo: Sendable {
    /// `firebase` for the user, the provider (`apple.com`, `password`, `phone`…) for an entry.
    var providerID: String { get }
    /// The Hearth uid for the user; the provider's own id for an entry.
    var uid: String { get }
    var displayName: String? { get }
    var photoURL: URL? { get }
    var email: String? { get }
    var phoneNumber: String? { get }
}

/// One linked provider, as `accounts:lookup` reports it in `providerUserInfo`.
struct ProviderUserInfo: UserInfo, Codable, Equatable {
    let providerID: String
    let uid: String
    let displayName: String?
    let photoURL: URL?
    let email: String?
    let phoneNumber: String?

    init?(lookup p: JSON) {
        guard let provider = p["providerId"]?.string else { return nil }
        providerID = provider
        uid = p["rawId"]?.string ?? p["federatedId"]?.string ?? p["email"]?.string ?? p["phoneNumber"]?.string ?? ""
        displayName = p["displayName"]?.string
        photoURL = p["photoUrl"]?.string.flatMap(URL.init(string:))
        email = p["email"]?.string
        phoneNumber = p["phoneNumber"]?.string
    }
}

/// When the account was created and last signed in.
public struct UserMetadata: Sendable, Equatable, Codable {
    public let creationDate: Date?
    public let lastSignInDate: Date?
}
