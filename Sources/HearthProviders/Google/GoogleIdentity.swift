import Foundation
import HearthCore

/// Google Sign-In ID tokens.
enum GoogleIdentity {
    /// A project that names a Workspace domain admits only its accounts (the ID token's `hd`).
    static func checkHostedDomain(_ claims: [String: JSONValue], _ settings: GoogleSettings) throws(AuthError) {
        if let domain = settings.hostedDomain, claims["hd"]?.stringValue != domain {
            throw AuthError(.invalidIDPResponse, "The Google account is not in the \(domain) domain.")
        }
    }

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
