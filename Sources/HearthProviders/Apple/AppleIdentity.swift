import Foundation
import HearthCore

/// Sign in with Apple identity tokens.
enum AppleIdentity {
    /// Apple's claims and the `user` JSON the app forwards on the first sign-in (the only time Apple gives the name).
    static func identity(claims: [String: JSONValue], user: JSONValue?) -> FederatedIdentity {
        let sub = claims["sub"]?.stringValue ?? ""
        let email = claims["email"]?.stringValue.map { $0.lowercased() }
        let privateRelay =
            claims["is_private_email"]?.looseBool ?? (email?.hasSuffix("@privaterelay.appleid.com") ?? false)
        let first = user?["name"]?["firstName"]?.stringValue.flatMap(nonBlank)
        let last = user?["name"]?["lastName"]?.stringValue.flatMap(nonBlank)
        let full = [first, last].compactMap { $0 }.joined(separator: " ")
        var raw = claims
        if let user { raw["user"] = user }
        return FederatedIdentity(
            providerID: FederatedProvider.apple, rawID: sub, email: email,
            emailVerified: email != nil && (claims["email_verified"]?.looseBool ?? false),
            isPrivateEmail: privateRelay, displayName: full.isEmpty ? nil : full, firstName: first, lastName: last,
            rawUserInfo: raw, tokenNonce: claims["nonce"]?.stringValue,
            tokenExpiresAt: claims["exp"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
    }

    static func nonBlank(_ s: String) -> String? {
        let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
        return t.isEmpty ? nil : t
    }
}
