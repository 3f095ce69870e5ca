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
/// HMAC-SHA256 of `<timestamp>.<body>` under the shared secret (`WebhookSigner`). Body:
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
        let request = WebhookSigner.request(
            url: configuration.url, body: bytes, secret: configuration.secret, sentAt: message.sentAt)
        try await client.deliver(request, to: "webhook", timeout: timeout)
    }
}
