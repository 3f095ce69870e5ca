import Foundation
import HearthCore

/// Identities from generic OpenID Connect ID tokens (also Facebook Limited Login's, which are OIDC tokens).
enum OIDCIdentity {
    static func identity(providerID: String, claims: [String: JSONValue]) -> FederatedIdentity {
        let email = claims["email"]?.stringValue.map { $0.lowercased() }
        let picture: String? =
            claims["picture"]?.stringValue ?? claims["picture"]?["data"]?["url"]?.stringValue
        return FederatedIdentity(
            providerID: providerID, rawID: claims["sub"]?.stringValue ?? "", email: email,
            emailVerified: email != nil && (claims["email_verified"]?.looseBool ?? false),
            displayName: claims["name"]?.stringValue, firstName: claims["given_name"]?.stringValue,
            lastName: claims["family_name"]?.stringValue, photoURL: picture, rawUserInfo: claims,
            tokenNonce: claims["nonce"]?.stringValue,
            tokenExpiresAt: claims["exp"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
    }
}
