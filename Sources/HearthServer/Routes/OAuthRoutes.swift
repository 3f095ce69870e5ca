import HearthCore
import HearthEngine
import Hummingbird

/// Hearth's OAuth 2.0 token endpoint, the `token_uri` of the service-account files it writes: a JWT-bearer
/// grant (RFC 7523) signed by a service-account key is exchanged for an admin access token. Errors use
/// OAuth's shape (RFC 6749 §5.2), which google-auth and other OAuth clients read.
struct OAuthRoutes: Sendable {
    let engine: AuthEngine

    func register(on router: HearthRouter) {
        for path: RouterPath in ["/oauth2/token", "/oauth2/v4/token", "/token"] {
            router.post(path) { request, context in
                let wire = try await WireRequest.decode(request, context: context)
                do {
                    let grant = try await engine.exchangeServiceAccountAssertion(
                        grantType: try wire.string("grantType"), assertion: try wire.string("assertion"))
                    return WireResponse.json([
                        "access_token": .string(grant.accessToken), "token_type": "Bearer",
                        "expires_in": .number(Double(grant.expiresIn)),
                    ])
                } catch let error as AuthError {
                    let code =
                        switch error.code {
                        case .oauthInvalidGrant, .oauthUnsupportedGrantType: error.code.rawValue
                        default: AuthErrorCode.oauthInvalidRequest.rawValue
                        }
                    return WireResponse.json(
                        .compact(["error": .string(code), "error_description": .text(error.detail)]),
                        status: .badRequest)
                }
            }
        }
    }
}
