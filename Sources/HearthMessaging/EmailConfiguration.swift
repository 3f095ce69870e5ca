import Foundation
import HearthCore
import HearthStore
import Logging

/// Which e-mail sender a server uses (`email` in the config file). Without one, a production server sends no
/// mail and says so; `--emulator` uses the development outbox.
public struct EmailConfiguration: Sendable, Equatable, Codable {
    public enum Provider: String, Sendable, Codable {
        /// Development: links are kept in the store and logged. Chosen explicitly or by `--emulator`.
        case outbox
        case smtp
        case webhook
    }

    /// Nil: not configured.
    public var provider: Provider?
    public var smtp: SMTPEmailSender.Configuration?
    public var webhook: WebhookEmailSender.Configuration?

    public init(
        provider: Provider? = nil, smtp: SMTPEmailSender.Configuration? = nil,
        webhook: WebhookEmailSender.Configuration? = nil
    ) {
        self.provider = provider
        self.smtp = smtp
        self.webhook = webhook
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case provider, smtp, webhook }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decodeIfPresent(Provider.self, forKey: .provider)
        smtp = try c.decodeIfPresent(SMTPEmailSender.Configuration.self, forKey: .smtp)
        webhook = try c.decodeIfPresent(WebhookEmailSender.Configuration.self, forKey: .webhook)
    }

    /// Secrets from the environment, so they need not sit in the config file.
    public mutating func applyEnvironment(_ env: [String: String]) {
        if let password = env["HEARTH_SMTP_PASSWORD"], !password.isEmpty { smtp?.password = password }
        if let secret = env["HEARTH_EMAIL_WEBHOOK_SECRET"], !secret.isEmpty { webhook?.secret = secret }
    }

    /// What is wrong with the configuration, if anything.
    public var problem: String? {
        switch provider {
        case nil, .outbox?: return nil
        case .smtp?:
            guard let smtp else { return "email.provider is smtp but email.smtp is missing" }
            return smtp.problem.map { "email.smtp: \($0)" }
        case .webhook?:
            guard let webhook else { return "email.provider is webhook but email.webhook is missing" }
            return webhook.secret?.isEmpty == false
                ? nil : "email.webhook needs a secret (HEARTH_EMAIL_WEBHOOK_SECRET)"
        }
    }

    /// The sender for this configuration; `emulator` makes an unconfigured server use the development outbox.
    public func makeSender(store: AuthStore, logger: Logger, emulator: Bool) throws -> EmailSender {
        switch provider {
        case nil: emulator ? OutboxEmailSender(store: store, logger: logger) : UnconfiguredEmailSender()
        case .outbox?: OutboxEmailSender(store: store, logger: logger)
        case .smtp?: try SMTPEmailSender(configuration: smtp!)
        case .webhook?: WebhookEmailSender(configuration: webhook!)
        }
    }
}
