import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthOutbound
import HearthStore
import NIOCore

/// Hands each SMS to an HTTPS endpoint of the operator's (their own gateway, a queue, another
/// provider) as JSON, signed so the endpoint can tell the request came from Hearth.
///
/// Headers: `X-Hearth-Timestamp` (Unix seconds) and `X-Hearth-Signature: sha256=<hex>`, the
/// HMAC-SHA256 of `<timestamp>.<body>` under the shared secret. Body:
/// `{"projectId","phoneNumber","text","code"}`.
public struct WebhookSMSSender: SMSSender {
    public struct Configuration: Sendable, Equatable, Codable {
        public var url: String
        /// Shared secret for the signature (or HEARTH_SMS_WEBHOOK_SECRET).
        public var secret: String?

        public init(url: String, secret: String? = nil) {
            self.url = url
            self.secret = secret
        }
    }

    let configuration: Configuration
    let client: HTTPClient
    let timeout: TimeAmount

    public init(
        configuration: Configuration, client: HTTPClient = OutboundHTTP.client, timeout: TimeAmount = .seconds(10)
    ) {
        self.configuration = configuration
        self.client = client
        self.timeout = timeout
    }

    public func send(_ message: OutboxMessage) async throws {
        let body: JSONValue = [
            "projectId": .string(message.projectID), "phoneNumber": .string(message.phoneNumber),
            "text": .string(message.text), "code": .string(message.code),
        ]
        let bytes = body.jsonBytes
        let timestamp = String(Int(message.sentAt.timeIntervalSince1970))
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-Hearth-Timestamp", value: timestamp)
        request.headers.add(
            name: "X-Hearth-Signature",
            value: "sha256=" + Self.signature(secret: configuration.secret ?? "", timestamp: timestamp, body: bytes))
        request.body = .bytes(ByteBuffer(bytes: bytes))
        try await client.deliver(request, to: "webhook", timeout: timeout)
    }

    /// Hex HMAC-SHA256 of `timestamp.body`: what a receiver recomputes to check a request.
    public static func signature(secret: String, timestamp: String, body: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return mac.map { String(format: "%02x", $0) }.joined()
    }
}
