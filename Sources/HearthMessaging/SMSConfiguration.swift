import HearthStore
import Logging

/// Which SMS provider a server uses (`sms` in the config file).
public struct SMSConfiguration: Sendable, Equatable, Codable {
    public enum Provider: String, Sendable, Codable {
        /// Development default: codes are logged and kept in the store; no SMS leaves the machine.
        case outbox
        case twilio
        case webhook
    }

    /// Nil when not configured: `--emulator` then uses the development outbox, and a production server sends no
    /// SMS at all (a code kept in a plaintext outbox would let a reader of the database sign in as anyone).
    /// `outbox` outside the emulator is an explicit development setting.
    public var provider: Provider?
    public var twilio: TwilioSMSSender.Configuration?
    public var webhook: WebhookSMSSender.Configuration?

    public init(
        provider: Provider? = nil, twilio: TwilioSMSSender.Configuration? = nil,
        webhook: WebhookSMSSender.Configuration? = nil
    ) {
        self.provider = provider
        self.twilio = twilio
        self.webhook = webhook
    }

    /// Secrets from the environment, so they need not sit in the config file.
    public mutating func applyEnvironment(_ env: [String: String]) {
        if let token = env["HEARTH_TWILIO_AUTH_TOKEN"], !token.isEmpty { twilio?.authToken = token }
        if let secret = env["HEARTH_TWILIO_API_KEY_SECRET"], !secret.isEmpty { twilio?.apiKeySecret = secret }
        if let secret = env["HEARTH_SMS_WEBHOOK_SECRET"], !secret.isEmpty { webhook?.secret = secret }
    }

    /// What is wrong with the configuration, if anything.
    public var problem: String? {
        switch provider {
        case nil, .outbox?: return nil
        case .twilio?:
            guard let twilio else { return "sms.provider is twilio but sms.twilio is missing" }
            return twilio.problem
        case .webhook?:
            guard let webhook else { return "sms.provider is webhook but sms.webhook is missing" }
            return webhook.secret?.isEmpty == false ? nil : "sms.webhook needs a secret (HEARTH_SMS_WEBHOOK_SECRET)"
        }
    }

    /// The provider a server uses: in emulator mode the outbox unless another is configured.
    public func effectiveProvider(emulator: Bool) -> Provider? { provider ?? (emulator ? .outbox : nil) }

    public func makeSender(store: AuthStore, logger: Logger, emulator: Bool) -> SMSSender {
        switch effectiveProvider(emulator: emulator) {
        case nil: UnconfiguredSMSSender()
        case .outbox?: OutboxSMSSender(store: store, logger: logger)
        case .twilio?: TwilioSMSSender(configuration: twilio!)
        case .webhook?: WebhookSMSSender(configuration: webhook!)
        }
    }
}
