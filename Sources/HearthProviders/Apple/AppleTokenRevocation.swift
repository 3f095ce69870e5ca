import Crypto
import Foundation
import HearthCore

/// The kinds of Apple token `v2/accounts:revokeToken` accepts.
public enum AppleTokenKind: Sendable {
    case authorizationCode
    case refreshToken
    case accessToken
}

/// Apple's token endpoints with an ES256 client secret: exchanging an authorization code and revoking tokens,
/// which App Store review requires before an account is deleted.
struct AppleTokenRevocation {
    let settings: AppleSettings
    let http: ProviderHTTP
    let now: Date

    /// Revokes `token` at Apple; an authorization code is first exchanged for the refresh token it stands for.
    func revoke(_ token: String, kind: AppleTokenKind) async throws {
        let clientID = try self.clientID()
        let secret = try clientSecret(clientID: clientID)
        var revocable = token
        var hint = kind == .accessToken ? "access_token" : "refresh_token"
        if kind == .authorizationCode {
            let exchanged = try await http.postForm(
                settings.tokenUrl,
                [
                    ("client_id", clientID), ("client_secret", secret), ("code", token),
                    ("grant_type", "authorization_code"),
                ])
            guard exchanged.status == 200 else {
                throw AuthError(
                    .invalidIDPResponse,
                    "Apple refused the authorization code (\(exchanged.json["error"]?.stringValue ?? "HTTP \(exchanged.status)"))."
                )
            }
            if let refresh = exchanged.json["refresh_token"]?.stringValue {
                revocable = refresh
            } else if let access = exchanged.json["access_token"]?.stringValue {
                revocable = access
                hint = "access_token"
            } else {
                throw AuthError(.invalidIDPResponse, "Apple's token response had no token to revoke.")
            }
        }
        let revoked = try await http.postForm(
            settings.revokeUrl,
            [("client_id", clientID), ("client_secret", secret), ("token", revocable), ("token_type_hint", hint)])
        guard revoked.status == 200 else {
            throw AuthError(
                .invalidIDPResponse,
                "Apple refused the revocation (\(revoked.json["error"]?.stringValue ?? "HTTP \(revoked.status)")).")
        }
    }

    func clientID() throws -> String {
        guard let id = settings.codeClientId ?? settings.clientIds.first else { throw Self.notConfigured }
        return id
    }

    /// Apple's client secret: an ES256 JWT by the team's Sign in with Apple key, valid five minutes.
    func clientSecret(clientID: String) throws -> String {
        guard let team = settings.teamId, let keyID = settings.keyId else { throw Self.notConfigured }
        let key = try Self.privateKey(settings)
        let iat = now.secondsSince1970
        let header: JSONValue = ["alg": "ES256", "kid": .string(keyID)]
        let claims: JSONValue = [
            "iss": .string(team), "iat": .number(Double(iat)), "exp": .number(Double(iat + 300)),
            "aud": "https://appleid.apple.com", "sub": .string(clientID),
        ]
        let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(claims.jsonBytes)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// The .p8 key, inline or from its file. A key that cannot be read is the operator's problem, reported as such.
    static func privateKey(_ settings: AppleSettings) throws -> P256.Signing.PrivateKey {
        var pem = settings.privateKey
        if pem == nil, let path = settings.privateKeyFile {
            pem = try? String(contentsOfFile: path, encoding: .utf8)
        }
        guard let pem, let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw AuthError(.operationNotAllowed, "The Apple private key for token revocation could not be read.")
        }
        return key
    }

    static let notConfigured = AuthError(
        .operationNotAllowed,
        "Apple token revocation needs teamId, keyId and privateKey in the project's configuration.")
}

extension IdentityProviders {
    /// `v2/accounts:revokeToken` for apple.com.
    public func revokeAppleToken(_ token: String, kind: AppleTokenKind, settings: FederationSettings) async throws {
        guard let apple = settings.apple else {
            throw AuthError(.operationNotAllowed, "The identity provider apple.com is not enabled for this project.")
        }
        try await AppleTokenRevocation(settings: apple, http: http, now: clock.now()).revoke(token, kind: kind)
    }
}
