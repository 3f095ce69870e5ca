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
    /// The e-mail is an anonymising relay (Apple's `…@privaterelay.appleid.com`, `is_private_email`): mail to it
    /// reaches the user only from domains registered with the provider.
    public var isPrivateEmail: Bool

    public init(
        providerID: String, rawID: String, federatedID: String? = nil, email: String? = nil,
        displayName: String? = nil, photoURL: String? = nil, phoneNumber: String? = nil, isPrivateEmail: Bool = false
    ) {
        self.providerID = providerID
        self.rawID = rawID
        self.federatedID = federatedID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.isPrivateEmail = isPrivateEmail
    }

    enum CodingKeys: String, CodingKey {
        case providerID, rawID, federatedID, email, displayName, photoURL, phoneNumber, isPrivateEmail
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        providerID = try c.decode(String.self, forKey: .providerID)
        rawID = try c.decode(String.self, forKey: .rawID)
        federatedID = try c.decodeIfPresent(String.self, forKey: .federatedID)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        photoURL = try c.decodeIfPresent(String.self, forKey: .photoURL)
        phoneNumber = try c.decodeIfPresent(String.self, forKey: .phoneNumber)
        isPrivateEmail = try c.decodeIfPresent(Bool.self, forKey: .isPrivateEmail) ?? false
    }
}
