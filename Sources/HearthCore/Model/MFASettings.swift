/// A project's multi-factor rules, in the shape of Identity Platform's `mfa` config (config file key `mfa`, and
/// `PATCH /v2/projects/{p}/config?updateMask=mfa`):
///
/// ```
/// {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
///  "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}
/// ```
///
/// Off by default, as in a new Firebase project: no one can enroll, and enrolled users are not challenged.
public struct MFASettings: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Equatable {
        case disabled = "DISABLED"
        case enabled = "ENABLED"
        case mandatory = "MANDATORY"
    }

    public var state: State = .disabled
    /// SMS second factors (`enabledProviders` contains `PHONE_SMS`).
    public var phoneEnabled = false
    /// TOTP second factors; nil when not enabled. The number of 30-second steps accepted either side of the
    /// current one (Firebase allows 0–10, default 5).
    public var totpAdjacentIntervals: Int?

    public init(state: State = .disabled, phoneEnabled: Bool = false, totpAdjacentIntervals: Int? = nil) {
        self.state = state
        self.phoneEnabled = phoneEnabled
        self.totpAdjacentIntervals = totpAdjacentIntervals
    }

    public static let defaultAdjacentIntervals = 5

    /// Whether users of this project may enroll and are challenged at sign-in.
    public var isOn: Bool { state != .disabled }
    public var allowsPhone: Bool { isOn && phoneEnabled }
    public var allowsTOTP: Bool { isOn && totpAdjacentIntervals != nil }

    public init(json: JSONValue) throws(AuthError) {
        guard case .object(let o) = json else { throw AuthError(.invalidConfig, "mfa must be an object") }
        if let raw = o["state"], raw != .null {
            guard let text = raw.stringValue else { throw AuthError(.invalidConfig, "mfa.state is a string") }
            if text == "STATE_UNSPECIFIED" {
                state = .disabled
            } else {
                guard let parsed = State(rawValue: text) else {
                    throw AuthError(.invalidConfig, "mfa.state must be DISABLED, ENABLED or MANDATORY")
                }
                state = parsed
            }
        }
        if let providers = o["enabledProviders"], providers != .null {
            guard case .array(let items) = providers else {
                throw AuthError(.invalidConfig, "mfa.enabledProviders is a list")
            }
            for item in items {
                switch item.stringValue {
                case "PHONE_SMS"?: phoneEnabled = true
                case "PROVIDER_UNSPECIFIED"?: break
                default: throw AuthError(.invalidConfig, "mfa.enabledProviders accepts PHONE_SMS")
                }
            }
        }
        if let configs = o["providerConfigs"], configs != .null {
            guard case .array(let items) = configs else {
                throw AuthError(.invalidConfig, "mfa.providerConfigs is a list")
            }
            for item in items {
                guard let totp = item["totpProviderConfig"] else {
                    throw AuthError(.invalidConfig, "mfa.providerConfigs entries need totpProviderConfig")
                }
                let enabled = (item["state"]?.stringValue ?? "ENABLED") == "ENABLED"
                let intervals = totp["adjacentIntervals"]?.doubleValue.map { Int($0) } ?? Self.defaultAdjacentIntervals
                guard (0...10).contains(intervals) else {
                    throw AuthError(.invalidConfig, "totpProviderConfig.adjacentIntervals must be 0 to 10")
                }
                totpAdjacentIntervals = enabled ? intervals : nil
            }
        }
    }

    /// The admin config's view.
    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "state": .string(state.rawValue),
            "enabledProviders": phoneEnabled ? ["PHONE_SMS"] : [],
        ]
        if let totpAdjacentIntervals {
            o["providerConfigs"] = [
                [
                    "state": "ENABLED",
                    "totpProviderConfig": ["adjacentIntervals": .number(Double(totpAdjacentIntervals))],
                ]
            ]
        }
        return .object(o)
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: try JSONValue(from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        try json.encode(to: encoder)
    }
}
