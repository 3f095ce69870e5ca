/// An error a client caused, carried from where it is found to the wire unchanged.
///
/// On the wire it becomes Firebase's envelope; `message` is `CODE` or `CODE : detail`,
/// the form the official SDKs split on to find the code.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: AuthErrorCode
    public var detail: String?

    public init(_ code: AuthErrorCode, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    public var message: String {
        guard let detail, !detail.isEmpty else { return code.rawValue }
        // A few codes are Google front-end errors whose message is prose, not "CODE : detail".
        if code.isFrontEndError { return detail }
        return "\(code.rawValue) : \(detail)"
    }

    public var description: String { message }
}

extension AuthErrorCode {
    /// Codes produced by Google's API front end rather than Identity Toolkit: their message is plain prose.
    var isFrontEndError: Bool {
        switch self {
        case .invalidJSONPayload, .missingAPIKey, .invalidAPIKey, .notFound, .payloadTooLarge, .methodNotAllowed,
            .unauthenticated, .permissionDenied:
            true
        default:
            false
        }
    }
}

extension AuthError {
    /// The reason Google APIs put in `errors[0].reason`.
    public var reason: String {
        switch code {
        case .missingAPIKey, .permissionDenied: "forbidden"
        case .invalidAPIKey: "keyInvalid"  // what the iOS SDK looks for to report invalidAPIKey
        case .invalidJSONPayload: "parseError"
        case .notFound: "notFound"
        case .unauthenticated: "required"
        case .payloadTooLarge: "badRequest"
        case .tooManyAttemptsTryLater, .quotaExceeded: "invalid"
        default: code.httpStatus >= 500 ? "backendError" : "invalid"
        }
    }
}

extension AuthError {
    /// Google's front-end answer to a request without a key.
    public static let missingAPIKey = AuthError(
        .missingAPIKey,
        "The request is missing a valid API key."
    )
    /// Google's front-end answer to a key it does not know.
    public static let invalidAPIKey = AuthError(.invalidAPIKey, "API key not valid. Please pass a valid API key.")
}
