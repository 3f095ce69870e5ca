import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthOutbound
import NIOCore
import Synchronization

/// Delivers phone app verification's silent push: the `verifyClient` receipt and secret, to the
/// device whose APNs token the iOS app sent, which hands it back to the SDK (`canHandleNotification`).
public protocol SilentPushSender: Sendable {
    func sendVerificationPush(deviceToken: String, sandbox: Bool, receipt: String, secret: String) async throws
}

/// The push could not be delivered: APNs refused it (its `reason`) or could not be reached.
public struct SilentPushFailed: Error, Sendable, Equatable {
    public let status: Int
    public let reason: String
}

/// Apple's APNs provider API over HTTP/2 with token-based authentication (an ES256 JWT signed with
/// the team's `.p8` key, renewed every 40 minutes as Apple asks: not more than every 20, not older
/// than 60).
public final class APNsSender: SilentPushSender {
    public struct Configuration: Sendable, Equatable, Codable {
        /// The app's bundle id, the push's `apns-topic`.
        public var topic: String?
        public var teamID: String?
        public var keyID: String?
        /// The `.p8` key's PEM text, or (`keyFile`) a path to it.
        public var key: String?
        public var keyFile: String?
        public var baseURL: String = "https://api.push.apple.com"
        public var sandboxBaseURL: String = "https://api.sandbox.push.apple.com"
        /// How long the app gets to receive the push and come back (`suggestedTimeout`).
        public var suggestedTimeoutSeconds: Int = 5

        public init() {}

        enum CodingKeys: String, CodingKey {
            case topic, teamID = "teamId", keyID = "keyId", key, keyFile, baseURL = "baseUrl"
            case sandboxBaseURL = "sandboxBaseUrl", suggestedTimeoutSeconds
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let d = Configuration()
            topic = try c.decodeIfPresent(String.self, forKey: .topic)
            teamID = try c.decodeIfPresent(String.self, forKey: .teamID)
            keyID = try c.decodeIfPresent(String.self, forKey: .keyID)
            key = try c.decodeIfPresent(String.self, forKey: .key)
            keyFile = try c.decodeIfPresent(String.self, forKey: .keyFile)
            baseURL = try c.decodeIfPresent(String.self, forKey: .baseURL) ?? d.baseURL
            sandboxBaseURL = try c.decodeIfPresent(String.self, forKey: .sandboxBaseURL) ?? d.sandboxBaseURL
            suggestedTimeoutSeconds =
                try c.decodeIfPresent(Int.self, forKey: .suggestedTimeoutSeconds) ?? d.suggestedTimeoutSeconds
        }

        /// Whether enough is set to send pushes.
        public var isConfigured: Bool { topic != nil && teamID != nil && keyID != nil && (key ?? keyFile) != nil }
    }

    public struct InvalidKey: Error, CustomStringConvertible {
        public let description: String
    }

    let configuration: Configuration
    let signingKey: P256.Signing.PrivateKey
    let client: HTTPClient
    private let token = Mutex<(jwt: String, issuedAt: Date)?>(nil)

    /// - Parameter client: HTTP/2 is negotiated with ALPN; pass a client that trusts a test server's
    ///   certificate to point `baseURL` at one.
    public init(configuration: Configuration, client: HTTPClient = OutboundHTTP.client) throws {
        guard configuration.isConfigured, let topic = configuration.topic, !topic.isEmpty else {
            throw InvalidKey(description: "apns needs topic, teamId, keyId and key or keyFile")
        }
        var pem = configuration.key
        if pem == nil, let path = configuration.keyFile {
            do { pem = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw InvalidKey(description: "apns.keyFile \(path): \(error)")
            }
        }
        do { signingKey = try P256.Signing.PrivateKey(pemRepresentation: pem ?? "") } catch {
            throw InvalidKey(description: "apns key is not a PEM P-256 (.p8) key: \(error)")
        }
        self.configuration = configuration
        self.client = client
    }

    /// The provider token, reused for 40 minutes.
    func providerToken(now: Date = Date()) throws -> String {
        try token.withLock { cached in
            if let cached, now.timeIntervalSince(cached.issuedAt) < 40 * 60 { return cached.jwt }
            let header = #"{"alg":"ES256","kid":"\#(configuration.keyID ?? "")"}"#
            let claims = #"{"iss":"\#(configuration.teamID ?? "")","iat":\#(Int(now.timeIntervalSince1970))}"#
            let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
            let signature = try signingKey.signature(for: Data(input.utf8)).rawRepresentation
            let jwt = input + "." + Base64URL.encode(signature)
            cached = (jwt, now)
            return jwt
        }
    }

    public func sendVerificationPush(deviceToken: String, sandbox: Bool, receipt: String, secret: String) async throws {
        let base = sandbox ? configuration.sandboxBaseURL : configuration.baseURL
        var request = HTTPClientRequest(url: "\(base)/3/device/\(deviceToken)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(try providerToken())")
        request.headers.add(name: "apns-topic", value: configuration.topic ?? "")
        request.headers.add(name: "apns-push-type", value: "background")
        request.headers.add(name: "apns-priority", value: "5")  // background pushes must not use 10
        request.headers.add(name: "apns-expiration", value: "0")
        request.headers.add(name: "content-type", value: "application/json")
        let payload: JSONValue = [
            "aps": ["content-available": 1],
            "com.google.firebase.auth": ["receipt": .string(receipt), "secret": .string(secret)],
        ]
        request.body = .bytes(ByteBuffer(bytes: payload.jsonBytes))
        let response: HTTPClientResponse
        do { response = try await client.executeOutbound(request, timeout: .seconds(10)) } catch {
            throw SilentPushFailed(status: 0, reason: "\(error)")
        }
        let body = try? await response.body.collect(upTo: 16 * 1024)
        guard response.status.code == 200 else {
            let answer = body.flatMap { try? JSONValue.parse(Array($0.readableBytesView)) }
            throw SilentPushFailed(
                status: Int(response.status.code),
                reason: answer?["reason"]?.stringValue ?? "HTTP \(response.status.code)")
        }
    }
}
