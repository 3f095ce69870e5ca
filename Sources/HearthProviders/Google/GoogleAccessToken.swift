import Foundation
import HearthCore

/// Google sign-in with an OAuth access token only (FirebaseAuth's `GoogleAuthProvider.credential(withIDToken:
/// accessToken:)` with no ID token, or a web flow's token): Google's token-info endpoint says whom the token was
/// issued to, which must be one of the project's client ids (a token for another app is refused), and the
/// user-info endpoint gives the profile.
struct GoogleAccessToken {
    let settings: GoogleSettings
    let http: ProviderHTTP

    func identity(accessToken: String, now: Date) async throws -> FederatedIdentity {
        let info = try await http.get(ProviderHTTP.url(settings.tokenInfoUrl, [("access_token", accessToken)]))
        guard info.status == 200, let sub = info.json["sub"]?.stringValue, !sub.isEmpty else {
            throw AuthError(.invalidIDPResponse, "The Google access token is invalid or has expired.")
        }
        let audiences = [info.json["aud"]?.stringValue, info.json["azp"]?.stringValue].compactMap { $0 }
        guard audiences.contains(where: settings.clientIds.contains) else {
            throw AuthError(.invalidIDPResponse, "The Google access token was issued to another client.")
        }
        if let exp = info.json["exp"].flatMap(Self.seconds), exp <= now.timeIntervalSince1970 {
            throw AuthError(.invalidIDPResponse, "The Google access token has expired.")
        }
        let profile = try await http.get(settings.userInfoUrl, bearer: accessToken)
        guard profile.status == 200, case .object(var claims) = profile.json, claims["sub"]?.stringValue == sub else {
            throw AuthError(.invalidIDPResponse, "The Google profile could not be read.")
        }
        try GoogleIdentity.checkHostedDomain(claims, settings)
        // Neither answer is a token with a nonce: nothing to use once.
        claims["nonce"] = nil
        claims["exp"] = nil
        return GoogleIdentity.identity(claims: claims)
    }

    /// Token info gives `exp` as a string of seconds.
    static func seconds(_ v: JSONValue) -> Double? {
        switch v {
        case .string(let s): Double(s)
        case .number(let n): n
        default: nil
        }
    }
}
