import Foundation

/// Identity Platform blocking functions (`blockingFunctions` in the v2 config): HTTP endpoints Hearth calls before
/// an account is created and before a sign-in completes, which may refuse it or change the user.
public struct BlockingFunctionSettings: Sendable, Equatable {
    /// The events Hearth calls functions for: before an account is created, before a sign-in, and before a
    /// password-reset or sign-in e-mail or an SMS code is sent.
    public static let events = ["beforeCreate", "beforeSignIn", "beforeSendEmail", "beforeSendSms"]

    /// Event name → function URL.
    public var triggers: [String: String] = [:]
    /// Which of the provider's OAuth credentials go to the function (`idToken`, `accessToken`, `refreshToken`), as
    /// the config set them (only those it named are shown back, as Firebase does).
    public var forwardInboundCredentials: [String: Bool] = [:]
    static let credentialKinds = ["idToken", "accessToken", "refreshToken"]

    public init() {}

    /// Reads the v2 config's `blockingFunctions` object; INVALID_BLOCKING_FUNCTION for an unknown event or a URL
    /// the server may not call (`OutboundURLPolicy`: absolute http(s), no link-local or metadata address).
    public init(config: JSONValue) throws(AuthError) {
        if let value = config["triggers"], value != .null, value.objectValue == nil {
            throw AuthError(.invalidBlockingFunction, "((triggers must map event types to functions.))")
        }
        if case .object(let triggers)? = config["triggers"] {
            for (event, trigger) in triggers {
                guard Self.events.contains(event) else {
                    throw AuthError(.invalidBlockingFunction, "((Event type is invalid.))")
                }
                guard let uri = trigger["functionUri"]?.stringValue, let url = BrowserURL(uri), url.host != nil else {
                    throw AuthError(
                        .invalidBlockingFunction, "((Expected an absolute URI with valid scheme and host.))")
                }
                // The server will POST signed events there: only where `OutboundURLPolicy` lets it call.
                try OutboundURLPolicy.check(uri, setting: "functionUri", error: .invalidBlockingFunction)
                self.triggers[event] = uri
            }
        }
        for kind in Self.credentialKinds {
            if let value = config["forwardInboundCredentials"]?[kind]?.boolValue {
                forwardInboundCredentials[kind] = value
            }
        }
    }

    /// The v2 config's view.
    public var json: JSONValue {
        var out: [String: JSONValue] = [:]
        if !triggers.isEmpty {
            out["triggers"] = .object(triggers.mapValues { ["functionUri": .string($0)] })
        }
        if !forwardInboundCredentials.isEmpty {
            out["forwardInboundCredentials"] = .object(forwardInboundCredentials.mapValues(JSONValue.bool))
        }
        return .object(out)
    }
}
