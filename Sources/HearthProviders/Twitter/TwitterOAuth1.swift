import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore

/// Twitter's OAuth 1.0a (RFC 5849, HMAC-SHA1): every request is signed with the consumer secret and, once there is
/// one, the token's secret. The browser flow is request token → the user authorizes → access token; a token and
/// secret then read the account from `verify_credentials`.
struct TwitterOAuth1 {
    let settings: TwitterSettings
    let http: ProviderHTTP
    var nonce: @Sendable () -> String = { UUID().uuidString.replacingOccurrences(of: "-", with: "") }
    var now: @Sendable () -> Date = { Date() }

    /// A request token for a sign-in that returns to `callback`.
    func requestToken(callback: String) async throws -> (token: String, secret: String) {
        let answer = try await signed(
            "POST", settings.requestTokenUrl, oauth: [("oauth_callback", callback)], token: nil)
        guard let token = answer["oauth_token"], let secret = answer["oauth_token_secret"],
            answer["oauth_callback_confirmed"] == "true"
        else { throw AuthError(.invalidIDPResponse, "Twitter did not issue a request token.") }
        return (token, secret)
    }

    /// The access token for an authorized request token.
    func accessToken(requestToken: String, secret: String, verifier: String) async throws
        -> (token: String, secret: String)
    {
        let answer = try await signed(
            "POST", settings.accessTokenUrl, oauth: [("oauth_verifier", verifier)],
            token: (requestToken, secret))
        guard let token = answer["oauth_token"], let tokenSecret = answer["oauth_token_secret"] else {
            throw AuthError(.invalidIDPResponse, "Twitter refused the authorization.")
        }
        return (token, tokenSecret)
    }

    /// The account an access token belongs to.
    func identity(accessToken: String, secret: String) async throws -> FederatedIdentity {
        let query = [("include_email", "true"), ("skip_status", "true")]
        var request = HTTPClientRequest(url: ProviderHTTP.url(settings.verifyCredentialsUrl, query))
        request.headers.add(
            name: "Authorization",
            value: authorization(
                "GET", settings.verifyCredentialsUrl, oauth: [], query: query, token: (accessToken, secret)))
        let reply = try await http.sendRaw(request)
        guard reply.status == 200, case .object(let profile)? = try? JSONValue(parsing: reply.body),
            let id = profile["id_str"]?.stringValue
        else { throw AuthError(.invalidIDPResponse, "The Twitter access token is invalid.") }
        let email = profile["email"]?.stringValue?.lowercased()
        var identity = FederatedIdentity(
            providerID: FederatedProvider.twitter, rawID: id, email: email,
            // Twitter hands out only addresses it has verified.
            emailVerified: email != nil, displayName: profile["name"]?.stringValue,
            photoURL: profile["profile_image_url_https"]?.stringValue, rawUserInfo: profile)
        identity.screenName = profile["screen_name"]?.stringValue
        return identity
    }

    /// POSTs a signed request whose answer is form-encoded.
    private func signed(_ method: String, _ url: String, oauth: [(String, String)], token: (String, String)?)
        async throws -> [String: String]
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(
            name: "Authorization", value: authorization(method, url, oauth: oauth, query: [], token: token))
        let reply = try await http.sendRaw(request)
        guard reply.status == 200 else {
            throw AuthError(.invalidIDPResponse, "Twitter refused the request (status \(reply.status)).")
        }
        var out: [String: String] = [:]
        for pair in reply.body.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if kv.count == 2 { out[kv[0]] = kv[1] }
        }
        return out
    }

    /// The `Authorization: OAuth …` header: the protocol parameters and their HMAC-SHA1 signature over the method,
    /// the URL and every parameter (RFC 5849 §3.4).
    func authorization(
        _ method: String, _ url: String, oauth extra: [(String, String)], query: [(String, String)],
        token: (key: String, secret: String)?
    ) -> String {
        var oauth: [(String, String)] = [
            ("oauth_consumer_key", settings.consumerKey), ("oauth_nonce", nonce()),
            ("oauth_signature_method", "HMAC-SHA1"), ("oauth_timestamp", String(Int(now().timeIntervalSince1970))),
            ("oauth_version", "1.0"),
        ]
        if let token { oauth.append(("oauth_token", token.key)) }
        oauth += extra
        let signature = Self.signature(
            method, url, parameters: oauth + query, consumerSecret: settings.consumerSecret, tokenSecret: token?.secret)
        oauth.append(("oauth_signature", signature))
        return "OAuth " + oauth.map { "\(Self.escape($0.0))=\"\(Self.escape($0.1))\"" }.joined(separator: ", ")
    }

    static func signature(
        _ method: String, _ url: String, parameters: [(String, String)], consumerSecret: String, tokenSecret: String?
    ) -> String {
        let normalized = parameters.map { (escape($0.0), escape($0.1)) }.sorted { $0 < $1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let base = [method.uppercased(), escape(url), escape(normalized)].joined(separator: "&")
        let key = escape(consumerSecret) + "&" + escape(tokenSecret ?? "")
        let mac = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(base.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(mac).base64EncodedString()
    }

    /// RFC 3986 percent-encoding: everything but unreserved characters.
    static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? s
    }

    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

extension IdentityProviders {
    /// Twitter's first leg: a request token whose authorization returns to `callback`, and the URL that asks the
    /// user (with the app's extra parameters, `force_login` or `screen_name`).
    public func twitterAuthorization(
        settings: FederationSettings, callback: String, customParameters: [String: String]
    ) async throws -> (authorizationURL: String, token: String, secret: String) {
        guard let twitter = settings.twitter else { throw Self.notEnabled(FederatedProvider.twitter) }
        let (token, secret) = try await TwitterOAuth1(settings: twitter, http: http).requestToken(callback: callback)
        let extra = customParameters.sorted { $0.key < $1.key }.filter { $0.key != "oauth_token" }.map {
            ($0.key, $0.value)
        }
        return (ProviderHTTP.url(twitter.authorizeUrl, [("oauth_token", token)] + extra), token, secret)
    }

    /// Twitter's last leg: the authorized request token and its verifier become an access token and an identity.
    public func redeemTwitter(
        settings: FederationSettings, requestToken: String, secret: String, verifier: String
    ) async throws -> AuthorizationCodeResult {
        guard let twitter = settings.twitter else { throw Self.notEnabled(FederatedProvider.twitter) }
        let oauth = TwitterOAuth1(settings: twitter, http: http)
        let access = try await oauth.accessToken(requestToken: requestToken, secret: secret, verifier: verifier)
        let identity = try await oauth.identity(accessToken: access.token, secret: access.secret)
        return AuthorizationCodeResult(
            identity: identity, accessToken: access.token, idToken: nil, tokenSecret: access.secret)
    }
}
