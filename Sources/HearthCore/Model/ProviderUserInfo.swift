/// A user's identity at one provider.
public struct ProviderUserInfo: Sendable, Equatable, Codable {
    public var providerID: String
    /// The user's id at the provider (Apple's `sub`, Google's `sub`, the e-mail for `password`).
    public var rawID: String
    public var federatedID: String?
    public var email: String?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?

    public init(
        providerID: String, rawID: String, federatedID: String? = nil, email: String? = nil,
        displayName: String? = nil, photoURL: String? = nil, phoneNumber: String? = nil
    ) {
        self.providerID = providerID
        self.rawID = rawID
        self.federatedID = federatedID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
    }
}
