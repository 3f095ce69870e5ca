import AsyncHTTPClient
import Foundation
import HearthCore
import HearthOutbound
import NIOCore
import NIOPosix
import NIOSSL

/// Hands each e-mail to an HTTPS endpoint of the operator's (a mail API's adapter, a queue) as JSON, signed as
/// the SMS webhook is (`WebhookSigner`): `X-Hearth-Timestamp` and `X-Hearth-Signature: sha256=<hex HMAC of
/// "<timestamp>.<body>">`.
/// Body: `{"projectId","to","from","fromName","replyTo","subject","text","html","kind","link"}`.
public struct WebhookEmailSender: EmailSender {
    public struct Configuration: Sendable, Equatable, Codable {
        public var url: String
        /// Shared secret for the signature (or HEARTH_EMAIL_WEBHOOK_SECRET).
        public var secret: String?
        /// Passed on for the receiver to use as the sender.
        public var from: String?
        public var fromName: String?

        public init(url: String, secret: String? = nil, from: String? = nil, fromName: String? = nil) {
            self.url = url
            self.secret = secret
            self.from = from
            self.fromName = fromName
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case url, secret, from, fromName }

        public init(from decoder: Decoder) throws {
            try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            secret = try c.decodeIfPresent(String.self, forKey: .secret)
            from = try c.decodeIfPresent(String.self, forKey: .from)
            fromName = try c.decodeIfPresent(String.self, forKey: .fromName)
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

    public func send(_ message: EmailMessage) async throws {
        var fields: [String: JSONValue] = [
            "projectId": .string(message.projectID), "to": .string(message.to),
            "subject": .string(message.subject), "text": .string(message.text), "html": .string(message.html),
            "kind": .string(message.kind.rawValue), "link": .string(message.link),
        ]
        if let from = configuration.from { fields["from"] = .string(from) }
        if let name = message.senderName ?? configuration.fromName { fields["fromName"] = .string(name) }
        if let replyTo = message.replyTo { fields["replyTo"] = .string(replyTo) }
        let body = JSONValue.object(fields)
        let bytes = body.jsonBytes
        let request = WebhookSigner.request(
            url: configuration.url, body: bytes, secret: configuration.secret, sentAt: message.sentAt)
        do {
            try await client.deliver(request, to: "webhook", timeout: timeout)
        } catch let error as SMSDeliveryError {
            throw EmailDeliveryError(provider: "webhook", detail: "answered \(error.status): \(error.detail)")
        } catch {
            throw EmailDeliveryError(
                provider: "webhook", detail: "\(error)", mayHaveArrived: Self.mayHaveArrived(after: error))
        }
    }

    /// Whether a call that got no answer may still have handed the message over. Not when no connection was made
    /// (the URL refused, the connection refused or unreachable, none within the deadline, TLS not agreed): the
    /// body goes only over an open connection. Otherwise (the deadline passed or the connection dropped while the
    /// receiver had the request) it may have, and the link in it is kept live, as for an SMTP relay that never
    /// confirmed; a receiver that answers with an error status has said it did not take it.
    static func mayHaveArrived(after error: any Error) -> Bool {
        switch error {
        case is OutboundURLRefused, is NIOConnectionError, is NIOSSLExtraError: return false
        case let error as NIOSSLError:
            // Only a handshake that failed proves the request never went out; TLS can also fail after it did.
            if case .handshakeFailed = error { return false }
            return true
        case let error as HTTPClientError:
            let noConnection: [HTTPClientError] = [
                .connectTimeout, .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout,
                .tlsHandshakeTimeout, .invalidURL, .emptyHost, .emptyScheme, .alreadyShutdown,
            ]
            return !noConnection.contains(error)
        case let error as IOError:
            return ![ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL].contains(error.errnoCode)
        case ChannelError.connectTimeout: return false
        default: return true
        }
    }
}
