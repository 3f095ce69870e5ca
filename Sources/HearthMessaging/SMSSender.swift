import AsyncHTTPClient
import HearthOutbound
import HearthStore
import Logging
import NIOCore

/// Delivers verification codes by SMS. Real providers (Twilio, a webhook) plug in here.
public protocol SMSSender: Sendable {
    /// Sends `text` to `phoneNumber`. Throws when the message could not be handed to the provider.
    func send(_ message: OutboxMessage) async throws
}

/// The development default: nothing leaves the machine; each message is kept in the store and its
/// code logged, so a developer can complete a sign-in without a phone.
public struct OutboxSMSSender: SMSSender {
    let store: AuthStore
    let logger: Logger

    public init(store: AuthStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func send(_ message: OutboxMessage) async throws {
        try await store.appendOutbox(message)
        logger.notice(
            "development SMS outbox: no SMS sent",
            metadata: ["project": "\(message.projectID)", "phone": "\(message.phoneNumber)", "code": "\(message.code)"])
    }
}

/// A production server with no SMS provider configured: it sends nothing and keeps nothing.
public struct UnconfiguredSMSSender: SMSSender {
    public init() {}
    public func send(_ message: OutboxMessage) async throws { throw SMSNotConfigured() }
}

/// No SMS provider is configured (`sms.provider`).
public struct SMSNotConfigured: Error, CustomStringConvertible {
    public var description: String { "no SMS provider is configured (sms.provider)" }
}

/// A provider refused or failed a message.
public struct SMSDeliveryError: Error, CustomStringConvertible {
    public let provider: String
    public let status: Int
    public let detail: String
    public var description: String { "\(provider) answered \(status): \(detail.prefix(300))" }
}

extension HTTPClient {
    /// Sends a provider request; anything but a 2xx answer is an `SMSDeliveryError`.
    func deliver(_ request: HTTPClientRequest, to provider: String, timeout: TimeAmount) async throws {
        let response = try await executeOutbound(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else {
            throw SMSDeliveryError(provider: provider, status: Int(response.status.code), detail: String(buffer: body))
        }
    }
}
