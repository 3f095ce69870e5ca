import Foundation
import HearthCore

/// Google Sign-In ID tokens.
enum GoogleIdentity {
    static func identity(claims: [String: JSONValue]) -> FederatedIdentity {
        let sub = claims["sub"]?.stringValue ?? ""
        let email = claims["email"]?.stringValue.map { $0.lowercased() }
        let verified = email != nil && (claims["email_verified"]?.looseBool ?? false)
        var raw: [String: JSONValue] = ["id": .string(sub), "verified_email": .bool(verified)]
        for (from, to) in [
            ("name", "name"), ("given_name", "given_name"), ("family_name", "family_name"), ("picture", "picture"),
            ("email", "email"), ("hd", "hd"), ("locale", "locale"),
        ] {
            if let v = claims[from] { raw[to] = v }
        }
        return FederatedIdentity(
            providerID: FederatedProvider.google, rawID: sub, federatedID: "https://accounts.google.com/\(sub)",
            email: email, emailVerified: verified, displayName: claims["name"]?.stringValue,
            firstName: claims["given_name"]?.stringValue, lastName: claims["family_name"]?.stringValue,
            photoURL: claims["picture"]?.stringValue, rawUserInfo: raw, tokenNonce: claims["nonce"]?.stringValue,
            tokenExpiresAt: claims["exp"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
    }
}
