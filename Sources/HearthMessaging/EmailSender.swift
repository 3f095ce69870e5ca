import Foundation
import HearthStore
import Logging

/// One e-mail Hearth sends: an action link (verify, reset, change, recover, sign in), already rendered.
public struct EmailMessage: Sendable, Equatable {
    public var projectID: String
    public var to: String
    /// The display name of the sender, when the project's template sets one (else the transport's `fromName`).
    public var senderName: String?
    /// The project's reply-to address, when its template sets one (else the transport's `replyTo`).
    public var replyTo: String?
    public var subject: String
    public var text: String
    public var html: String
    /// What the message carries, for the development outbox and the webhook's receiver.
    public var kind: EmailActionCode.Kind
    public var oobCode: String
    public var link: String
    public var sentAt: Date

    public init(
        projectID: String, to: String, senderName: String? = nil, replyTo: String? = nil, subject: String,
        text: String, html: String, kind: EmailActionCode.Kind, oobCode: String, link: String, sentAt: Date
    ) {
        self.projectID = projectID
        self.to = to
        self.senderName = senderName
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
        self.kind = kind
        self.oobCode = oobCode
        self.link = link
        self.sentAt = sentAt
    }
}

/// Delivers e-mail. Throws `EmailDeliveryError` when the message could not be handed over.
public protocol EmailSender: Sendable {
    func send(_ message: EmailMessage) async throws
    /// False for the sender of a server with no mail set up: it refuses every message.
    var isConfigured: Bool { get }
}

extension EmailSender {
    public var isConfigured: Bool { true }
}

/// Why a message was not delivered; the text names the stage and the server's answer, never the message.
public struct EmailDeliveryError: Error, CustomStringConvertible, Equatable {
    public let provider: String
    public let detail: String
    /// The whole message was handed over but its receipt never confirmed (the deadline passed, or the connection
    /// dropped, before the relay's answer): it may have arrived, so a link in it is kept live.
    public let mayHaveArrived: Bool
    public init(provider: String, detail: String, mayHaveArrived: Bool = false) {
        self.provider = provider
        self.detail = detail
        self.mayHaveArrived = mayHaveArrived
    }
    public var description: String { "\(provider): \(detail.prefix(300))" }
}

/// Development only (`--emulator`, or `email.provider: "outbox"` set on purpose): nothing leaves the machine;
/// each message is kept in the store, where the emulator's `oobCodes` route lists it, and its link is logged.
public struct OutboxEmailSender: EmailSender {
    let store: AuthStore
    let logger: Logger

    public init(store: AuthStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func send(_ message: EmailMessage) async throws {
        try await store.appendEmailOutbox(
            EmailOutboxMessage(
                projectID: message.projectID, email: message.to, kind: message.kind, oobCode: message.oobCode,
                oobLink: message.link, sentAt: message.sentAt))
        logger.notice(
            "development e-mail outbox: no e-mail sent",
            metadata: [
                "project": "\(message.projectID)", "email": "\(message.to)", "kind": "\(message.kind.rawValue)",
                "link": "\(message.link)",
            ])
    }
}

/// A production server with no `email` section: every message is refused, so no link is ever stored
/// or logged in plaintext instead of being sent.
public struct UnconfiguredEmailSender: EmailSender {
    public init() {}
    public var isConfigured: Bool { false }
    public func send(_ message: EmailMessage) async throws {
        throw EmailDeliveryError(provider: "none", detail: "no e-mail sender is configured")
    }
}
