import Foundation
import HearthCore

/// Identities from OAuth 2.0 user-info endpoints: GitHub's `/user` (numeric `id`, `login`, `avatar_url`, with
/// verified addresses from `/user/emails`), and OpenID Connect user-info (`sub`, `email`, `name`, …) for
/// Microsoft, Yahoo and LinkedIn.
enum OAuthUserInfo {
    static func identity(
        providerID: String, accessToken: String, userInfoURL: String, emailsURL: String?, http: ProviderHTTP
    ) async throws -> FederatedIdentity {
        let reply = try await http.get(userInfoURL, bearer: accessToken)
        guard reply.status == 200, case .object(let profile) = reply.json else {
            throw AuthError(.invalidIDPResponse, "The provider's user profile could not be read.")
        }
        guard providerID == ProviderID.github else {
            guard let sub = profile["sub"]?.stringValue, !sub.isEmpty else {
                throw AuthError(.invalidIDPResponse, "The provider's user profile names no user (sub).")
            }
            return OIDCIdentity.identity(providerID: providerID, claims: profile)
        }
        guard let id = profile["id"].flatMap(FacebookGraph.idString) else {
            throw AuthError(.invalidIDPResponse, "The GitHub profile names no user.")
        }
        var email = profile["email"]?.stringValue?.lowercased()
        var verified = false
        // The profile shows only a public address, unverified as far as it says; `/user/emails` tells which is
        // primary and verified.
        if let emailsURL {
            let emails = try await http.get(emailsURL, bearer: accessToken)
            if emails.status == 200, let list = emails.json.arrayValue,
                let primary = list.first(where: { $0["primary"]?.boolValue == true })
            {
                email = primary["email"]?.stringValue?.lowercased() ?? email
                verified = primary["verified"]?.boolValue ?? false
            }
        }
        let name = profile["name"]?.stringValue ?? profile["login"]?.stringValue
        return FederatedIdentity(
            providerID: providerID, rawID: id, email: email, emailVerified: email != nil && verified,
            displayName: name, photoURL: profile["avatar_url"]?.stringValue, rawUserInfo: profile)
    }
}
