import HearthCore

/// The real endpoints and usual scopes of the OAuth 2.0 providers Hearth signs in through the browser; each can be
/// overridden in `OAuthSettings`.
struct OAuthPreset: Sendable {
    var authorizationURL: String
    var tokenURL: String
    var userInfoURL: String
    var emailsURL: String?
    var scopes: [String]

    static let all: [String: OAuthPreset] = [
        ProviderID.github: OAuthPreset(
            authorizationURL: "https://github.com/login/oauth/authorize",
            tokenURL: "https://github.com/login/oauth/access_token", userInfoURL: "https://api.github.com/user",
            emailsURL: "https://api.github.com/user/emails", scopes: ["read:user", "user:email"]),
        ProviderID.microsoft: OAuthPreset(
            authorizationURL: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            tokenURL: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            userInfoURL: "https://graph.microsoft.com/oidc/userinfo", scopes: ["openid", "email", "profile"]),
        ProviderID.yahoo: OAuthPreset(
            authorizationURL: "https://api.login.yahoo.com/oauth2/request_auth",
            tokenURL: "https://api.login.yahoo.com/oauth2/get_token",
            userInfoURL: "https://api.login.yahoo.com/openid/v1/userinfo", scopes: ["openid", "email", "profile"]),
        ProviderID.linkedin: OAuthPreset(
            authorizationURL: "https://www.linkedin.com/oauth/v2/authorization",
            tokenURL: "https://www.linkedin.com/oauth/v2/accessToken",
            userInfoURL: "https://api.linkedin.com/v2/userinfo",
            scopes: ["openid", "email", "profile"]),
    ]
}
