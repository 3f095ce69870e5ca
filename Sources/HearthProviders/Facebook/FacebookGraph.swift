import Crypto
import Foundation
import HearthCore

/// Facebook Login's classic access tokens: checked with the Graph API's `debug_token` (with the app token),
/// then the profile is read from `/me` with `appsecret_proof`, so a token stolen from another app is refused.
struct FacebookGraph {
    let settings: FacebookSettings
    let http: ProviderHTTP

    func identity(accessToken: String) async throws -> FederatedIdentity {
        guard let secret = settings.appSecret, !secret.isEmpty else {
            throw AuthError(
                .operationNotAllowed, "Facebook access tokens need the app secret in the project's configuration.")
        }
        let base = settings.graphUrl.hasSuffix("/") ? String(settings.graphUrl.dropLast()) : settings.graphUrl
        let debug = try await http.get(
            ProviderHTTP.url(
                base + "/debug_token", [("input_token", accessToken), ("access_token", "\(settings.appId)|\(secret)")]))
        let data = debug.json["data"]
        guard debug.status == 200, data?["is_valid"]?.boolValue == true else {
            throw AuthError(.invalidIDPResponse, "The Facebook access token is invalid or has expired.")
        }
        guard let appID = data?["app_id"].flatMap(Self.idString), appID == settings.appId else {
            throw AuthError(.invalidIDPResponse, "The Facebook access token was issued to another app.")
        }
        guard let userID = data?["user_id"].flatMap(Self.idString) else {
            throw AuthError(.invalidIDPResponse, "The Facebook access token names no user.")
        }
        let me = try await http.get(
            ProviderHTTP.url(
                base + "/me",
                [
                    ("fields", "id,name,email,first_name,last_name,picture"), ("access_token", accessToken),
                    ("appsecret_proof", Self.proof(accessToken, secret: secret)),
                ]))
        guard me.status == 200, case .object(let profile) = me.json, profile["id"].flatMap(Self.idString) == userID
        else { throw AuthError(.invalidIDPResponse, "The Facebook profile could not be read.") }
        return FederatedIdentity(
            providerID: FederatedProvider.facebook, rawID: userID,
            email: profile["email"]?.stringValue.map { $0.lowercased() }, emailVerified: false,
            displayName: profile["name"]?.stringValue, firstName: profile["first_name"]?.stringValue,
            lastName: profile["last_name"]?.stringValue,
            photoURL: profile["picture"]?["data"]?["url"]?.stringValue, rawUserInfo: profile)
    }

    /// hex(HMAC-SHA256(app secret, access token)).
    static func proof(_ accessToken: String, secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(accessToken.utf8), using: SymmetricKey(data: Data(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// Graph ids arrive as strings, occasionally as numbers.
    static func idString(_ v: JSONValue) -> String? {
        switch v {
        case .string(let s): s
        case .number(let n): String(format: "%.0f", n)
        default: nil
        }
    }
}
