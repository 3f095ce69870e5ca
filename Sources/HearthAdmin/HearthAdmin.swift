import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// The facts a verified ID token or session cookie asserts.
public struct DecodedIDToken: Sendable, Equatable {
    public var uid: String
    public var issuedAt: Date
    public var authTime: Date
    public var expiresAt: Date
    public var signInProvider: String?
    /// Every claim, custom claims included.
    public var claims: [String: JSONValue]
}

/// Hearth's server-side SDK, shaped like the Firebase Admin SDKs: verify ID tokens and session cookies, mint
/// custom tokens, and manage users through Hearth's admin API.
///
/// ```swift
/// let admin = try HearthAdmin(
///     baseURL: URL(string: "https://auth.example.com")!,
///     credentials: ServiceAccountCredentials(contentsOf: URL(fileURLWithPath: "hearth-admin.json")))
/// let token = try await admin.verifyIDToken(bearer, checkRevoked: true)
/// ```
public final class HearthAdmin: Sendable {
    public let baseURL: String
    public let projectID: String
    let credentials: ServiceAccountCredentials?
    /// `hearth serve --emulator`: admin calls use `Bearer owner` and unsigned tokens are accepted.
    public let emulator: Bool
    let httpClient: HTTPClient
    let keys: PublicKeyCache
    let accessTokens: AccessTokenCache
    /// Seconds of clock difference tolerated on `iat` and `exp`.
    public let clockSkew: TimeInterval = 60

    public init(baseURL: URL, credentials: ServiceAccountCredentials, httpClient: HTTPClient = .shared) {
        self.baseURL =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        self.projectID = credentials.projectID
        self.credentials = credentials
        self.emulator = false
        self.httpClient = httpClient
        keys = PublicKeyCache(url: self.baseURL + Self.jwksPath, httpClient: httpClient)
        accessTokens = AccessTokenCache(credentials: credentials, httpClient: httpClient)
    }

    /// An SDK for `hearth serve --emulator` at `host:port`, as the Admin SDKs run with FIREBASE_AUTH_EMULATOR_HOST.
    public init(emulatorHost host: String, port: Int, projectID: String, httpClient: HTTPClient = .shared) {
        baseURL = "http://\(host):\(port)"
        self.projectID = projectID
        credentials = nil
        emulator = true
        self.httpClient = httpClient
        keys = PublicKeyCache(url: baseURL + Self.jwksPath, httpClient: httpClient)
        accessTokens = AccessTokenCache(credentials: nil, httpClient: httpClient)
    }

    static let jwksPath = "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"

    // MARK: Tokens

    public func verifyIDToken(_ token: String, checkRevoked: Bool = false) async throws -> DecodedIDToken {
        try await verify(token, issuer: "https://securetoken.google.com/\(projectID)", checkRevoked: checkRevoked)
    }

    public func verifySessionCookie(_ cookie: String, checkRevoked: Bool = false) async throws -> DecodedIDToken {
        try await verify(cookie, issuer: "https://session.firebase.google.com/\(projectID)", checkRevoked: checkRevoked)
    }

    private func verify(_ token: String, issuer: String, checkRevoked: Bool) async throws -> DecodedIDToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case .object(let header)? = try? JSONValue.parse(headerBytes),
            case .object(let claims)? = try? JSONValue.parse(payloadBytes)
        else { throw HearthAdminError.invalidToken("not a JWT") }
        // Only RS256 by a published key; `none` only against an emulator, as the Admin SDKs allow it there.
        if !(emulator && header["alg"]?.stringValue == "none") {
            guard header["alg"]?.stringValue == "RS256" else {
                throw HearthAdminError.invalidToken("algorithm must be RS256")
            }
            guard let kid = header["kid"]?.stringValue, let key = try await keys.key(kid: kid) else {
                throw HearthAdminError.invalidToken("signed by an unknown key")
            }
            let input = token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)
            guard
                key.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: Data(input)),
                    padding: .insecurePKCS1v1_5)
            else { throw HearthAdminError.invalidToken("bad signature") }
        }
        guard claims["aud"]?.stringValue == projectID else { throw HearthAdminError.invalidToken("wrong audience") }
        guard claims["iss"]?.stringValue == issuer else { throw HearthAdminError.invalidToken("wrong issuer") }
        guard let uid = claims["sub"]?.stringValue, (1...128).contains(uid.count) else {
            throw HearthAdminError.invalidToken("no valid subject")
        }
        guard let iat = claims["iat"]?.doubleValue, let exp = claims["exp"]?.doubleValue else {
            throw HearthAdminError.invalidToken("no iat or exp")
        }
        let now = Date().timeIntervalSince1970
        if iat > now + clockSkew { throw HearthAdminError.invalidToken("issued in the future") }
        if let nbf = claims["nbf"], (nbf.doubleValue ?? .infinity) > now + clockSkew {
            throw HearthAdminError.invalidToken("not valid yet (nbf)")
        }
        if exp <= now - clockSkew { throw HearthAdminError.tokenExpired }
        let decoded = DecodedIDToken(
            uid: uid, issuedAt: Date(timeIntervalSince1970: iat),
            authTime: Date(timeIntervalSince1970: claims["auth_time"]?.doubleValue ?? iat),
            expiresAt: Date(timeIntervalSince1970: exp),
            signInProvider: claims["firebase"]?["sign_in_provider"]?.stringValue,
            claims: claims)
        if checkRevoked {
            let user = try await users.get(uid: uid)
            if user.disabled { throw HearthAdminError.userDisabled }
            if let validSince = user.validSince,
                decoded.authTime.timeIntervalSince1970 < validSince.timeIntervalSince1970
            {
                throw HearthAdminError.tokenRevoked
            }
        }
        return decoded
    }

    /// A custom token for `uid`, signed offline with the service account's key (what `createCustomToken` makes);
    /// the app exchanges it with `signIn(withCustomToken:)`. Valid for one hour.
    public func createCustomToken(uid: String, claims: [String: JSONValue]? = nil) throws -> String {
        guard let credentials else { throw HearthAdminError.invalidCredentials("custom tokens need a service account") }
        guard (1...128).contains(uid.count) else {
            throw HearthAdminError.invalidCredentials("uid must be 1–128 characters")
        }
        if let claims, let reserved = claims.keys.sorted().first(where: CustomClaims.reserved.contains) {
            throw HearthAdminError.invalidCredentials("\(reserved) is a reserved claim")
        }
        let now = Int(Date().timeIntervalSince1970)
        var payload: [String: JSONValue] = [
            "iss": .string(credentials.clientEmail), "sub": .string(credentials.clientEmail),
            "aud": .string(CustomClaims.customTokenAudience), "uid": .string(uid), "iat": .number(Double(now)),
            "exp": .number(Double(now + 3600)),
        ]
        if let claims { payload["claims"] = .object(claims) }
        return try credentials.sign(payload)
    }

    // MARK: Users

    public var users: UserManagement { UserManagement(admin: self) }

    /// Calls an admin route and returns its JSON, or throws Hearth's error.
    /// `api` is the path before `/projects/{p}`: `/v1` (Identity Toolkit) or `/hearth/v1` (Hearth's own routes).
    func call(_ method: HTTPMethod, _ path: String, _ body: JSONValue? = nil, api: String = "/v1") async throws
        -> JSONValue
    {
        var request = HTTPClientRequest(url: "\(baseURL)\(api)/projects/\(projectID)\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(try await accessTokens.token())")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await httpClient.execute(request, timeout: .seconds(30))
            bytes = try await response.body.collect(upTo: 64 << 20)
        } catch { throw HearthAdminError.transport("\(error)") }
        let json = (try? JSONValue.parse(Array(buffer: bytes))) ?? .null
        guard response.status == .ok else {
            let message = json["error"]?["message"]?.stringValue ?? "HTTP \(response.status.code)"
            throw HearthAdminError.server(
                status: Int(response.status.code), code: message.components(separatedBy: " : ")[0], message: message)
        }
        return json
    }
}

/// Admin access tokens from the service account's token endpoint (RFC 7523 JWT-bearer grant), reused until
/// five minutes before they expire; `owner` against an emulator.
actor AccessTokenCache {
    let credentials: ServiceAccountCredentials?
    let httpClient: HTTPClient
    private var current: (token: String, expires: Date)?

    init(credentials: ServiceAccountCredentials?, httpClient: HTTPClient) {
        self.credentials = credentials
        self.httpClient = httpClient
    }

    func token() async throws -> String {
        guard let credentials else { return "owner" }
        if let current, current.expires.timeIntervalSinceNow > 300 { return current.token }
        let now = Int(Date().timeIntervalSince1970)
        let assertion = try credentials.sign([
            "iss": .string(credentials.clientEmail), "aud": .string(credentials.tokenURI.absoluteString),
            "scope": "https://www.googleapis.com/auth/identitytoolkit", "iat": .number(Double(now)),
            "exp": .number(Double(now + 3600)),
        ])
        var request = HTTPClientRequest(url: credentials.tokenURI.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await httpClient.execute(request, timeout: .seconds(30))
        let json = (try? JSONValue.parse(Array(buffer: try await response.body.collect(upTo: 1 << 20)))) ?? .null
        guard response.status == .ok, let token = json["access_token"]?.stringValue else {
            throw HearthAdminError.invalidCredentials(
                "the token endpoint refused the service account: \(json["error_description"]?.stringValue ?? "HTTP \(response.status.code)")"
            )
        }
        current = (token, Date().addingTimeInterval(json["expires_in"]?.doubleValue ?? 3600))
        return token
    }
}
