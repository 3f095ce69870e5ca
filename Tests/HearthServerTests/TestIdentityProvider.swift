import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import HearthCore
import Hummingbird
import Synchronization
import Testing

/// A real identity provider on 127.0.0.1 for tests: JWKS endpoints (Apple-, Google-, Facebook- and OIDC-shaped
/// paths), an OIDC discovery document, and Graph-shaped `debug_token` and `/me`. It signs real RS256 and ES256
/// tokens, can rotate keys, answer slowly or fail, and counts what it was asked.
final class TestIdentityProvider: Sendable {
    struct SigningKey: Sendable {
        enum Material: Sendable {
            case rsa(_RSA.Signing.PrivateKey)
            case p256(P256.Signing.PrivateKey)
        }

        let kid: String
        let material: Material

        var alg: String {
            if case .rsa = material { return "RS256" }
            return "ES256"
        }

        /// RSA keys are generated once per test run: generating a 2048-bit key takes long enough, synchronously on
        /// the cooperative pool, to stall every other test on a small machine. Different slots are different keys.
        static let rsaPool: [_RSA.Signing.PrivateKey] = (0..<4).map { _ in
            try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        }

        static func rsa(_ kid: String, slot: Int = 0) -> SigningKey {
            SigningKey(kid: kid, material: .rsa(rsaPool[slot]))
        }

        static func p256(_ kid: String) -> SigningKey {
            SigningKey(kid: kid, material: .p256(P256.Signing.PrivateKey()))
        }

        var jwk: JSONValue {
            switch material {
            case .rsa(let key):
                let p = try! key.publicKey.getKeyPrimitives()
                return [
                    "kty": "RSA", "kid": .string(kid), "use": "sig", "alg": "RS256",
                    "n": .string(Base64URL.encode(p.modulus)), "e": .string(Base64URL.encode(p.publicExponent)),
                ]
            case .p256(let key):
                let raw = key.publicKey.rawRepresentation
                return [
                    "kty": "EC", "kid": .string(kid), "use": "sig", "alg": "ES256", "crv": "P-256",
                    "x": .string(Base64URL.encode(raw.prefix(32))), "y": .string(Base64URL.encode(raw.suffix(32))),
                ]
            }
        }

        /// A compact JWS of `claims`; `alg` overrides the header (to forge `none` or HS256 tokens).
        func sign(_ claims: [String: JSONValue], alg headerAlg: String? = nil) throws -> String {
            let header: JSONValue = ["alg": .string(headerAlg ?? alg), "kid": .string(kid), "typ": "JWT"]
            let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(JSONValue.object(claims).jsonBytes)
            let signature: Data
            switch material {
            case .rsa(let key):
                signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
                    .rawRepresentation
            case .p256(let key):
                signature = try key.signature(for: Data(input.utf8)).rawRepresentation
            }
            return input + "." + Base64URL.encode(signature)
        }
    }

    /// A Facebook user the Graph endpoints know, by access token.
    struct GraphUser: Sendable {
        var appID: String
        var userID: String
        var profile: JSONValue
        var valid = true
    }

    let published: Mutex<[SigningKey]>
    let maxAge = Mutex<Int?>(3600)
    let delay = Mutex<Duration?>(nil)
    let failing = Mutex<Bool>(false)
    let requests = Mutex<[String]>([])
    let graphUsers = Mutex<[String: GraphUser]>([:])
    let appSecret = "fb-app-secret"
    /// Apple's token endpoints: the team's Sign in with Apple key, codes it will exchange, tokens revoked.
    static let appleTeam = "TEAM123456"
    let appleTeamKey = P256.Signing.PrivateKey()
    let appleCodes = Mutex<[String: String]>([:])
    let appleRevoked = Mutex<[String]>([])

    init(keys: [SigningKey]) { published = Mutex(keys) }

    func fetches(_ path: String) -> Int { requests.withLock { $0.filter { $0 == path }.count } }

    /// Runs the provider for the duration of `body`, passing its base URL.
    func serve(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        let base = Mutex("")
        router.get("**") { request, _ -> Response in
            let path = request.uri.path
            self.requests.withLock { $0.append(path) }
            if let delay = self.delay.withLock({ $0 }) { try await Task.sleep(for: delay) }
            if self.failing.withLock({ $0 }) {
                return Self.json(["error": "unavailable"], status: .internalServerError)
            }
            switch path {
            case "/oidc/.well-known/openid-configuration":
                let b = base.withLock { $0 }
                return Self.json(["issuer": .string(b + "/oidc"), "jwks_uri": .string(b + "/oidc/jwks")])
            case "/graph/debug_token":
                let token = request.uri.queryParameters["input_token"].map(String.init) ?? ""
                let appToken = request.uri.queryParameters["access_token"].map(String.init) ?? ""
                guard let user = self.graphUsers.withLock({ $0[token] }), appToken.hasSuffix("|\(self.appSecret)")
                else { return Self.json(["data": ["is_valid": false]]) }
                return Self.json([
                    "data": [
                        "is_valid": .bool(user.valid), "app_id": .string(user.appID), "user_id": .string(user.userID),
                    ]
                ])
            case "/graph/me":
                let token = request.uri.queryParameters["access_token"].map(String.init) ?? ""
                let proof = request.uri.queryParameters["appsecret_proof"].map(String.init) ?? ""
                let expected = HMAC<SHA256>.authenticationCode(
                    for: Data(token.utf8), using: SymmetricKey(data: Data(self.appSecret.utf8))
                ).map { String(format: "%02x", $0) }.joined()
                guard let user = self.graphUsers.withLock({ $0[token] }), proof == expected else {
                    return Self.json(["error": ["message": "Invalid appsecret_proof"]], status: .badRequest)
                }
                return Self.json(user.profile)
            default:
                let keys = self.published.withLock { $0 }
                var headers = HTTPFields()
                if let age = self.maxAge.withLock({ $0 }) { headers[.cacheControl] = "public, max-age=\(age)" }
                return Self.json(["keys": .array(keys.map(\.jwk))], headers: headers)
            }
        }
        router.post("**") { request, _ -> Response in
            let path = request.uri.path
            self.requests.withLock { $0.append(path) }
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            var form: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                if kv.count == 2 { form[kv[0]] = kv[1] }
            }
            if self.failing.withLock({ $0 }) {
                return Self.json(["error": "unavailable"], status: .internalServerError)
            }
            guard self.validAppleClientSecret(form["client_secret"], clientID: form["client_id"]) else {
                return Self.json(["error": "invalid_client"], status: .badRequest)
            }
            switch path {
            case "/apple/token":
                guard form["grant_type"] == "authorization_code",
                    let refresh = self.appleCodes.withLock({ $0.removeValue(forKey: form["code"] ?? "") })
                else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
                return Self.json([
                    "access_token": "apple-access", "refresh_token": .string(refresh), "token_type": "Bearer",
                    "expires_in": 3600,
                ])
            case "/apple/revoke":
                guard let token = form["token"] else {
                    return Self.json(["error": "invalid_request"], status: .badRequest)
                }
                self.appleRevoked.withLock { $0.append("\(form["token_type_hint"] ?? "-"):\(token)") }
                return Response(status: .ok)
            default:
                return Self.json(["error": "not_found"], status: .notFound)
            }
        }
        try await serveOnLoopback(router) { url in
            base.withLock { $0 = url }
            try await body(url)
        }
    }

    /// Apple's check of a client secret: an ES256 JWT by the team's key, for this client, addressed to Apple.
    func validAppleClientSecret(_ secret: String?, clientID: String?) -> Bool {
        guard let secret, let clientID else { return false }
        let parts = secret.split(separator: ".")
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]), let sig = Base64URL.decode(parts[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: sig),
            appleTeamKey.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)),
            let claims = try? JSONValue.parse(payload)
        else { return false }
        let now = Date().timeIntervalSince1970
        return claims["iss"]?.stringValue == Self.appleTeam && claims["sub"]?.stringValue == clientID
            && claims["aud"]?.stringValue == "https://appleid.apple.com"
            && (claims["exp"]?.doubleValue ?? 0) > now - 3600
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var all = headers
        all[.contentType] = "application/json"
        return Response(status: status, headers: all, body: .init(byteBuffer: ByteBuffer(string: value.jsonText)))
    }
}
