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
/// tokens, can rotate keys, answer slowly or fail, and counts what it was asked. For browser sign-in it is an
/// OAuth 2.0 authorization server: `/oauth/authorize` (approves at once, or answers `error`), `/oauth/token`
/// (checks the client secret, the redirect URI and PKCE S256; codes work once), OIDC `/oauth/userinfo`, and
/// GitHub-shaped `/github/user` and `/github/user/emails`.
public final class TestIdentityProvider: Sendable {
    public struct SigningKey: Sendable {
        public enum Material: Sendable {
            case rsa(_RSA.Signing.PrivateKey)
            case p256(P256.Signing.PrivateKey)
        }

        public let kid: String
        public let material: Material

        public var alg: String {
            if case .rsa = material { return "RS256" }
            return "ES256"
        }

        /// RSA keys are generated once per test run: generating a 2048-bit key takes long enough, synchronously on
        /// the cooperative pool, to stall every other test on a small machine. Different slots are different keys.
        static let rsaPool: [_RSA.Signing.PrivateKey] = (0..<4).map { _ in
            try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        }

        public static func rsa(_ kid: String, slot: Int = 0) -> SigningKey {
            SigningKey(kid: kid, material: .rsa(rsaPool[slot]))
        }

        public static func p256(_ kid: String) -> SigningKey {
            SigningKey(kid: kid, material: .p256(P256.Signing.PrivateKey()))
        }

        public var jwk: JSONValue {
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
        public func sign(_ claims: [String: JSONValue], alg headerAlg: String? = nil) throws -> String {
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
    public struct GraphUser: Sendable {
        public var appID: String
        public var userID: String
        public var profile: JSONValue
        public var valid = true

        public init(appID: String, userID: String, profile: JSONValue, valid: Bool = true) {
            self.appID = appID
            self.userID = userID
            self.profile = profile
            self.valid = valid
        }
    }

    public let published: Mutex<[SigningKey]>
    public let maxAge = Mutex<Int?>(3600)
    public let delay = Mutex<Duration?>(nil)
    public let failing = Mutex<Bool>(false)
    public let requests = Mutex<[String]>([])
    public let graphUsers = Mutex<[String: GraphUser]>([:])
    public let appSecret = "fb-app-secret"
    /// Apple's token endpoints: the team's Sign in with Apple key, codes it will exchange, tokens revoked.
    public static let appleTeam = "TEAM123456"
    public let appleTeamKey = P256.Signing.PrivateKey()
    public let appleCodes = Mutex<[String: String]>([:])
    public let appleRevoked = Mutex<[String]>([])

    /// An authorization the provider approved, waiting for its code to be exchanged.
    struct AuthorizationGrant: Sendable {
        public var clientID: String
        public var redirectURI: String
        public var challenge: String
        public var nonce: String?
        public var user: [String: JSONValue]
    }

    public static let oauthClientSecret = "oauth-client-secret"
    /// The user the next authorization approves (OIDC claims; GitHub's profile is derived from them).
    public let oauthUser = Mutex<[String: JSONValue]>([
        "sub": "oauth-user-1", "email": "grace@example.com", "email_verified": true, "name": "Grace Hopper",
    ])
    /// When set, `/oauth/authorize` refuses with this `error`.
    public let authorizeError = Mutex<String?>(nil)
    /// The query of every authorization request, in order.
    public let authorizeRequests = Mutex<[[String: String]]>([])
    let grants = Mutex<[String: AuthorizationGrant]>([:])
    private let baseURL = Mutex("")

    /// Twitter's OAuth 1.0a: consumer credentials, request tokens (secret, callback, verifier once authorized) and
    /// access tokens (secret), the account the next authorization approves.
    public static let twitterKey = "tw-consumer-key"
    public static let twitterSecret = "tw-consumer-secret"
    public let twitterRequestTokens = Mutex<[String: (secret: String, callback: String, verifier: String?)]>([:])
    public let twitterAccessTokens = Mutex<[String: String]>([:])
    public let twitterUser = Mutex<JSONValue>([
        "id_str": "1234567890", "name": "Tweety", "screen_name": "tweety", "email": "tweety@example.com",
        "profile_image_url_https": "https://pbs.example.com/tweety.jpg",
    ])
    /// The provider's base URL while it serves.
    public func base() -> String { baseURL.withLock { $0 } }
    public let accessTokens = Mutex<[String: [String: JSONValue]]>([:])
    /// The client each access token was issued to, for Google-shaped `/google/tokeninfo`.
    public let issuedTo = Mutex<[String: String]>([:])

    /// An access token for `user`, as if the provider had issued it to `client` (a Google Sign-In token).
    public func issueAccessToken(client: String, user: [String: JSONValue]) -> String {
        let token = "access-" + UUID().uuidString
        accessTokens.withLock { $0[token] = user }
        issuedTo.withLock { $0[token] = client }
        return token
    }

    public init(keys: [SigningKey]) { published = Mutex(keys) }

    public func fetches(_ path: String) -> Int { requests.withLock { $0.filter { $0 == path }.count } }

    /// Runs the provider for the duration of `body`, passing its base URL.
    public func serve(_ body: @Sendable (String) async throws -> Void) async throws {
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
                return Self.json([
                    "issuer": .string(b + "/oidc"), "jwks_uri": .string(b + "/oidc/jwks"),
                    "authorization_endpoint": .string(b + "/oauth/authorize"),
                    "token_endpoint": .string(b + "/oauth/token"),
                    "userinfo_endpoint": .string(b + "/oauth/userinfo"),
                ])
            case "/oauth/authorize":
                return self.authorize(request)
            case "/twitter/authorize":
                let token = request.uri.queryParameters["oauth_token"].map(String.init) ?? ""
                guard let pending = self.twitterRequestTokens.withLock({ $0[token] }) else {
                    return Self.json(["error": "unknown token"], status: .badRequest)
                }
                if self.authorizeError.withLock({ $0 }) != nil {
                    return Response(status: .found, headers: [.location: pending.callback + "?denied=\(token)"])
                }
                let verifier = "verifier-" + UUID().uuidString
                self.twitterRequestTokens.withLock { $0[token]?.verifier = verifier }
                return Response(
                    status: .found,
                    headers: [.location: pending.callback + "?oauth_token=\(token)&oauth_verifier=\(verifier)"])
            case "/twitter/verify_credentials.json":
                var query: [(String, String)] = []
                for (k, v) in request.uri.queryParameters { query.append((String(k), String(v))) }
                let signed = self.twitterSigned(
                    "GET", base.withLock { $0 } + path, request.headers[.authorization], query: query,
                    tokenSecret: { _, token in self.twitterAccessTokens.withLock { $0[token] } })
                guard let token = signed, !token.isEmpty else {
                    return Self.json(["errors": [["code": 89]]], status: .unauthorized)
                }
                return Self.json(self.twitterUser.withLock { $0 })
            case "/google/tokeninfo":
                let token = request.uri.queryParameters["access_token"].map(String.init) ?? ""
                guard let user = self.accessTokens.withLock({ $0[token] }),
                    let client = self.issuedTo.withLock({ $0[token] })
                else { return Self.json(["error": "invalid_token"], status: .badRequest) }
                return Self.json([
                    "aud": .string(client), "azp": .string(client), "sub": user["sub"] ?? .null,
                    "exp": .string(String(Int(Date().timeIntervalSince1970) + 3000)), "scope": "openid email",
                ])
            case "/oauth/userinfo", "/google/userinfo", "/github/user", "/github/user/emails":
                let bearer = request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? ""
                guard let user = self.accessTokens.withLock({ $0[bearer] }) else {
                    return Self.json(["error": "invalid_token"], status: .unauthorized)
                }
                switch path {
                case "/oauth/userinfo", "/google/userinfo": return Self.json(.object(user))
                case "/github/user":
                    return Self.json([
                        // GitHub ids are numbers; derived from the subject so each user keeps one.
                        "id": .number(Double(Self.numericID(user["sub"]?.stringValue ?? ""))),
                        "login": .string(user["sub"]?.stringValue ?? ""), "name": user["name"] ?? .null,
                        "email": .null, "avatar_url": "https://avatars.example.com/u/1",
                    ])
                default:
                    return Self.json([
                        ["email": "other@example.com", "primary": false, "verified": true],
                        ["email": user["email"] ?? .null, "primary": true, "verified": user["email_verified"] ?? false],
                    ])
                }
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
            if path == "/oauth/token" { return self.token(form, issuer: base.withLock { $0 } + "/oidc") }
            if path.hasPrefix("/twitter/") {
                return self.twitterPost(path, url: base.withLock { $0 } + path, header: request.headers[.authorization])
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
            self.baseURL.withLock { $0 = url }
            try await body(url)
        }
    }

    static func numericID(_ subject: String) -> Int { subject.utf8.reduce(7) { ($0 * 31 + Int($1)) % 1_000_003 } }

    /// Approves at once: a code for the requested client and redirect URI, bound to the PKCE challenge.
    func authorize(_ request: Request) -> Response {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        authorizeRequests.withLock { $0.append(query) }
        guard let redirect = query["redirect_uri"], let state = query["state"] else {
            return Self.json(["error": "invalid_request"], status: .badRequest)
        }
        func back(_ items: [(String, String)]) -> Response {
            var c = URLComponents(string: redirect)!
            c.queryItems = (c.queryItems ?? []) + items.map { URLQueryItem(name: $0.0, value: $0.1) }
            return Response(status: .found, headers: [.location: c.string!])
        }
        if let error = authorizeError.withLock({ $0 }) {
            return back([("error", error), ("error_description", "The user said no."), ("state", state)])
        }
        guard query["response_type"] == "code", query["code_challenge_method"] == "S256",
            let challenge = query["code_challenge"], let client = query["client_id"]
        else { return back([("error", "invalid_request"), ("state", state)]) }
        let code = "code-" + UUID().uuidString
        let grant = AuthorizationGrant(
            clientID: client, redirectURI: redirect, challenge: challenge, nonce: query["nonce"],
            user: oauthUser.withLock { $0 })
        grants.withLock { $0[code] = grant }
        return back([("code", code), ("state", state)])
    }

    /// The token endpoint: the client secret, the same redirect URI, and a verifier whose S256 is the challenge.
    func token(_ form: [String: String], issuer: String) -> Response {
        guard form["client_secret"] == Self.oauthClientSecret else {
            return Self.json(["error": "invalid_client"], status: .unauthorized)
        }
        guard form["grant_type"] == "authorization_code", let code = form["code"],
            let grant = grants.withLock({ $0.removeValue(forKey: code) }), grant.clientID == form["client_id"],
            grant.redirectURI == form["redirect_uri"], let verifier = form["code_verifier"],
            Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8)))) == grant.challenge
        else { return Self.json(["error": "invalid_grant"], status: .badRequest) }
        let access = issueAccessToken(client: grant.clientID, user: grant.user)
        var claims = grant.user
        let now = Date().timeIntervalSince1970
        claims["iss"] = .string(issuer)
        claims["aud"] = .string(grant.clientID)
        claims["iat"] = .number(now.rounded(.down))
        claims["exp"] = .number(now.rounded(.down) + 600)
        if let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        let key = published.withLock { $0[0] }
        return Self.json([
            "access_token": .string(access), "token_type": "Bearer", "expires_in": 3600,
            "id_token": .string(try! key.sign(claims)),
        ])
    }

    /// Twitter's request-token and access-token endpoints, answering form-encoded bodies.
    func twitterPost(_ path: String, url: String, header: String?) -> Response {
        func form(_ text: String, _ status: HTTPResponse.Status = .ok) -> Response {
            Response(
                status: status, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let params = Self.oauthParameters(header)
        switch path {
        case "/twitter/request_token":
            guard twitterSigned("POST", url, header, query: [], tokenSecret: { _, _ in nil }) != nil,
                let callback = params["oauth_callback"]
            else { return form("error=bad_signature", .unauthorized) }
            let token = "req-" + UUID().uuidString
            let secret = "req-secret-" + UUID().uuidString
            twitterRequestTokens.withLock { $0[token] = (secret, callback, nil) }
            return form("oauth_token=\(token)&oauth_token_secret=\(secret)&oauth_callback_confirmed=true")
        case "/twitter/access_token":
            guard
                let token = twitterSigned(
                    "POST", url, header, query: [],
                    tokenSecret: { _, token in self.twitterRequestTokens.withLock { $0[token]?.secret } }),
                let pending = twitterRequestTokens.withLock({ $0.removeValue(forKey: token) }),
                pending.verifier != nil, pending.verifier == params["oauth_verifier"]
            else { return form("error=invalid_verifier", .unauthorized) }
            let access = "acc-" + UUID().uuidString
            let secret = "acc-secret-" + UUID().uuidString
            twitterAccessTokens.withLock { $0[access] = secret }
            return form("oauth_token=\(access)&oauth_token_secret=\(secret)&user_id=1234567890&screen_name=tweety")
        default:
            return Self.json(["error": "not_found"], status: .notFound)
        }
    }

    /// The `oauth_token` of a correctly signed OAuth 1.0a request ("" without one), or nil when the signature (by
    /// the consumer secret and the token's secret) does not verify. An independent RFC 5849 implementation.
    func twitterSigned(
        _ method: String, _ url: String, _ header: String?, query: [(String, String)],
        tokenSecret: ([String: String], String) -> String?
    ) -> String? {
        var params = Self.oauthParameters(header)
        guard params["oauth_consumer_key"] == Self.twitterKey, params["oauth_signature_method"] == "HMAC-SHA1",
            let signature = params.removeValue(forKey: "oauth_signature")
        else { return nil }
        let token = params["oauth_token"] ?? ""
        let secret = token.isEmpty ? "" : (tokenSecret(params, token) ?? "unknown-token")
        func escape(_ s: String) -> String {
            s.addingPercentEncoding(
                withAllowedCharacters: CharacterSet(
                    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? s
        }
        let pairs = (params.map { ($0.key, $0.value) } + query).map { escape($0.0) + "=" + escape($0.1) }.sorted()
        let base = "\(method)&\(escape(url))&\(escape(pairs.joined(separator: "&")))"
        let key = SymmetricKey(data: Data("\(escape(Self.twitterSecret))&\(escape(secret))".utf8))
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(base.utf8), using: key)
        let expected = Data(mac).base64EncodedString()
        return expected == signature ? token : nil
    }

    /// `OAuth k="v", …` → [k: v], percent-decoded.
    static func oauthParameters(_ header: String?) -> [String: String] {
        guard let header, header.hasPrefix("OAuth ") else { return [:] }
        var out: [String: String] = [:]
        for part in header.dropFirst(6).split(separator: ",") {
            let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            out[kv[0].removingPercentEncoding ?? kv[0]] =
                kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).removingPercentEncoding
        }
        return out
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
