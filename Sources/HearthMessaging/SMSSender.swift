import HearthStore
import Logging

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
