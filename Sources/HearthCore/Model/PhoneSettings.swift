public enum AppVerification: String, Sendable, Equatable, Codable {
    case disabled
    case recaptcha
    /// iOS apps prove themselves by APNs silent push (`verifyClient`, then `iosReceipt` and `iosSecret`);
    /// a reCAPTCHA token is accepted instead when the server has reCAPTCHA, as Firebase falls back to it.
    case apns
}

/// How a project signs users in by phone: code rules, abuse limits and test numbers.
public struct PhoneSettings: Sendable, Equatable, Codable {
    /// Fictional numbers (E.164) with fixed 6-digit codes: no SMS is sent and no limit applies. At most 10.
    public var testPhoneNumbers: [String: String] = [:]
    /// How long a code stays valid (Firebase: a few minutes).
    public var codeLifetimeSeconds: Int = 300
    /// Wrong codes allowed per session before it is dead.
    public var maxCodeAttempts: Int = 5
    /// Minimum time between two codes sent to one number.
    public var resendCooldownSeconds: Int = 30
    /// Codes sent to one number per day; more answer QUOTA_EXCEEDED.
    public var codesPerNumberPerDay: Int = 10
    /// Codes requested from one IP (Firebase: 50 a minute, 500 an hour).
    public var codesPerIPPerMinute: Int = 50
    public var codesPerIPPerHour: Int = 500
    /// Name put into the SMS text (`%APP_NAME%`).
    public var appName: String = "Hearth"
    /// The project's own SMS text, with `%LOGIN_CODE%` and `%APP_NAME%`; replaces the built-in,
    /// localised ones.
    public var smsTemplate: String?
    /// `disabled` (no proof asked, the testing mode of the emulator and `isAppVerificationDisabledForTesting`),
    /// `recaptcha` (every request must carry a valid `recaptchaToken`) or `apns` (an APNs silent-push receipt
    /// and secret, or a reCAPTCHA token). Test phone numbers never need a proof, as in Firebase.
    public var appVerification: AppVerification = .disabled
    /// Regions (ISO codes such as "KR") codes may be sent to; empty: all not denied.
    public var allowedRegions: [String] = []
    /// Regions codes are never sent to (Identity Platform's smsRegionConfig deny-list).
    public var deniedRegions: [String] = []

    public init() {}

    /// Whether codes may be sent to a number in `region`.
    public func allowsSMS(to region: String?) -> Bool {
        guard let region else { return allowedRegions.isEmpty }
        if deniedRegions.contains(region) { return false }
        return allowedRegions.isEmpty || allowedRegions.contains(region)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case testPhoneNumbers, codeLifetimeSeconds, maxCodeAttempts, resendCooldownSeconds, codesPerNumberPerDay,
            codesPerIPPerMinute, codesPerIPPerHour, appName, smsTemplate, appVerification, allowedRegions, deniedRegions
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PhoneSettings()
        testPhoneNumbers = try c.decode(.testPhoneNumbers, default: d.testPhoneNumbers)
        codeLifetimeSeconds = try c.decode(.codeLifetimeSeconds, default: d.codeLifetimeSeconds)
        maxCodeAttempts = try c.decode(.maxCodeAttempts, default: d.maxCodeAttempts)
        resendCooldownSeconds = try c.decode(.resendCooldownSeconds, default: d.resendCooldownSeconds)
        codesPerNumberPerDay = try c.decode(.codesPerNumberPerDay, default: d.codesPerNumberPerDay)
        codesPerIPPerMinute = try c.decode(.codesPerIPPerMinute, default: d.codesPerIPPerMinute)
        codesPerIPPerHour = try c.decode(.codesPerIPPerHour, default: d.codesPerIPPerHour)
        appName = try c.decode(.appName, default: d.appName)
        smsTemplate = try c.decodeIfPresent(String.self, forKey: .smsTemplate)
        appVerification = try c.decode(.appVerification, default: d.appVerification)
        allowedRegions = try c.decode(.allowedRegions, default: d.allowedRegions)
        deniedRegions = try c.decode(.deniedRegions, default: d.deniedRegions)
    }
}
