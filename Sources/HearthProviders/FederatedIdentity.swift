import Crypto
import Foundation
import HearthCore

/// What a client presents from a provider: the `postBody` of `accounts:signInWithIdp`.
public struct ProviderCredential: Sendable {
    public var providerID: String
    public var idToken: String?
    public var accessToken: String?
    /// OAuth 1.0a (Twitter): the access token's secret.
    public var tokenSecret: String?
    /// The raw nonce whose SHA-256 (hex) the app sent to the provider.
    public var rawNonce: String?
    /// Apple's `user` JSON (`{"name":{"firstName","lastName"}}`), sent by the app on the first sign-in only.
    public var appleUser: JSONValue?
    /// A `SAMLResponse`: emulator mode reads the emulator's fake one (a JSON assertion) and nothing else.
    public var samlResponse: String?

    public init(
        providerID: String, idToken: String? = nil, accessToken: String? = nil, tokenSecret: String? = nil,
        rawNonce: String? = nil, appleUser: JSONValue? = nil, samlResponse: String? = nil
    ) {
        self.providerID = providerID
        self.idToken = idToken
        self.accessToken = accessToken
        self.tokenSecret = tokenSecret
        self.rawNonce = rawNonce
        self.appleUser = appleUser
        self.samlResponse = samlResponse
    }
}

/// A user's identity at a provider, after Hearth verified the credential.
public struct FederatedIdentity: Sendable, Equatable {
    public var providerID: String
    /// The user's id at the provider (`sub`, a Facebook user id).
    public var rawID: String
    /// Firebase's `federatedId` (Google's is a URL; the others the raw id).
    public var federatedID: String
    public var email: String?
    public var emailVerified: Bool
    /// Apple's private relay (`…@privaterelay.appleid.com`).
    public var isPrivateEmail: Bool
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var photoURL: String?
    /// The user's handle at the provider (Twitter's `screen_name`; a fake token's `screen_name` in the emulator).
    public var screenName: String?
    /// The provider's profile, as Firebase returns it in `rawUserInfo`.
    public var rawUserInfo: [String: JSONValue]
    /// The token's `nonce` claim and expiry, for the single-use rule.
    public var tokenNonce: String?
    public var tokenExpiresAt: Date?
    /// A SAML assertion's attribute statements, which blocking functions receive as `sign_in_attributes`; nil for
    /// every other provider, as Firebase sends none.
    public var signInAttributes: [String: JSONValue]? = nil

    public init(
        providerID: String, rawID: String, federatedID: String? = nil, email: String? = nil,
        emailVerified: Bool = false, isPrivateEmail: Bool = false, displayName: String? = nil, firstName: String? = nil,
        lastName: String? = nil, photoURL: String? = nil, rawUserInfo: [String: JSONValue] = [:],
        screenName: String? = nil, tokenNonce: String? = nil, tokenExpiresAt: Date? = nil
    ) {
        self.providerID = providerID
        self.rawID = rawID
        self.federatedID = federatedID ?? rawID
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
        self.photoURL = photoURL
        self.rawUserInfo = rawUserInfo
        self.screenName = screenName
        self.tokenNonce = tokenNonce
        self.tokenExpiresAt = tokenExpiresAt
    }
}

/// Provider ids as Firebase spells them (`ProviderID`, the one list).
public typealias FederatedProvider = ProviderID

/// The nonce rule (Apple, Facebook Limited Login, OIDC): whenever the token or the request has a nonce, the
/// token's must be the lower-case hex SHA-256 of the request's raw nonce.
public enum NonceRule {
    public static func check(tokenNonce: String?, rawNonce: String?) throws(AuthError) {
        if tokenNonce == nil, rawNonce == nil { return }
        guard let tokenNonce, let rawNonce, ConstantTime.equals(Array(tokenNonce.utf8), Array(hash(rawNonce).utf8))
        else {
            throw AuthError(
                .missingOrInvalidNonce, "Duplicate credential received. Please try again with a new credential.")
        }
    }

    public static func hash(_ rawNonce: String) -> String {
        SHA256.hash(data: Data(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension JSONValue {
    /// Apple sends some booleans as strings ("true").
    var looseBool: Bool? {
        switch self {
        case .bool(let b): b
        case .string("true"): true
        case .string("false"): false
        default: nil
        }
    }
}
