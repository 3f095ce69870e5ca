/// How a project's e-mail looks and how often it may be sent (config key `email` of a project).
public struct EmailSettings: Sendable, Equatable, Codable {
    /// `%APP_NAME%` in the built-in and the project's own templates.
    public var appName: String = "Hearth"
    /// Links sent to one address per hour, per kind (Firebase answers a reset over it with
    /// RESET_PASSWORD_EXCEED_LIMIT). 0: unlimited.
    public var sendsPerAddressPerHour: Int = 5
    /// Links requested from one client IP per hour, all kinds and addresses (QUOTA_EXCEEDED). 0: unlimited.
    public var sendsPerIPPerHour: Int = 50
    /// The project's own texts, replacing the built-in localised ones per kind.
    public var templates: Templates = .init()
    /// Tell the account's verified address when its password changes (by the user or through a reset link), with a
    /// link to reset it. Off by default: Firebase sends no such notice.
    public var notifyPasswordChange: Bool = false

    public init() {}

    /// Firebase's template kinds.
    public struct Templates: Sendable, Equatable, Codable {
        public var verifyEmail: EmailTemplate?
        public var passwordReset: EmailTemplate?
        /// Sent to the new address of a `verifyBeforeUpdateEmail`.
        public var changeEmail: EmailTemplate?
        /// Sent to the old address after an e-mail change, with the link that undoes it.
        public var recoverEmail: EmailTemplate?
        public var emailSignIn: EmailTemplate?
        /// Sent to a verified address after a second factor was added, with the link that removes it.
        public var revertSecondFactorAddition: EmailTemplate?
        /// Sent when `notifyPasswordChange` is on.
        public var passwordChanged: EmailTemplate?

        public init() {}

        enum CodingKeys: String, CodingKey, CaseIterable {
            case verifyEmail, passwordReset, changeEmail, recoverEmail, emailSignIn, revertSecondFactorAddition
            case passwordChanged
        }

        public init(from decoder: Decoder) throws {
            try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            verifyEmail = try c.decodeIfPresent(EmailTemplate.self, forKey: .verifyEmail)
            passwordReset = try c.decodeIfPresent(EmailTemplate.self, forKey: .passwordReset)
            changeEmail = try c.decodeIfPresent(EmailTemplate.self, forKey: .changeEmail)
            recoverEmail = try c.decodeIfPresent(EmailTemplate.self, forKey: .recoverEmail)
            emailSignIn = try c.decodeIfPresent(EmailTemplate.self, forKey: .emailSignIn)
            revertSecondFactorAddition = try c.decodeIfPresent(EmailTemplate.self, forKey: .revertSecondFactorAddition)
            passwordChanged = try c.decodeIfPresent(EmailTemplate.self, forKey: .passwordChanged)
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case appName, sendsPerAddressPerHour, sendsPerIPPerHour, templates, notifyPasswordChange
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = EmailSettings()
        appName = try c.decode(.appName, default: d.appName)
        sendsPerAddressPerHour = try c.decode(.sendsPerAddressPerHour, default: d.sendsPerAddressPerHour)
        sendsPerIPPerHour = try c.decode(.sendsPerIPPerHour, default: d.sendsPerIPPerHour)
        templates = try c.decode(.templates, default: d.templates)
        notifyPasswordChange = try c.decode(.notifyPasswordChange, default: d.notifyPasswordChange)
    }
}

/// A project's own e-mail for one kind, as Firebase's console edits it: every part optional; what is missing comes
/// from the built-in template. `body` is HTML with Firebase's placeholders (`%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`,
/// `%APP_NAME%`, `%DISPLAY_NAME%`, and `%SECOND_FACTOR%` in the second-factor notice), whose values are HTML-escaped; `text` is the plain-text part (derived from
/// `body` when absent).
public struct EmailTemplate: Sendable, Equatable, Codable {
    public var senderName: String?
    public var replyTo: String?
    public var subject: String?
    public var body: String?
    public var text: String?

    public init(
        senderName: String? = nil, replyTo: String? = nil, subject: String? = nil, body: String? = nil,
        text: String? = nil
    ) {
        self.senderName = senderName
        self.replyTo = replyTo
        self.subject = subject
        self.body = body
        self.text = text
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case senderName, replyTo, subject, body, text }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        senderName = try c.decodeIfPresent(String.self, forKey: .senderName)
        replyTo = try c.decodeIfPresent(String.self, forKey: .replyTo)
        subject = try c.decodeIfPresent(String.self, forKey: .subject)
        body = try c.decodeIfPresent(String.self, forKey: .body)
        text = try c.decodeIfPresent(String.self, forKey: .text)
    }
}
