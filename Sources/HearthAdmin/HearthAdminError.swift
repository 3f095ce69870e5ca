/// What HearthAdmin reports.
public enum HearthAdminError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token is not a valid Hearth ID token or session cookie for this project; the reason says why.
    case invalidToken(String)
    case tokenExpired
    /// `checkRevoked`: the user's sessions were revoked after this token was issued.
    case tokenRevoked
    case userDisabled
    case invalidCredentials(String)
    /// Hearth answered with a Firebase error (`EMAIL_EXISTS`, `USER_NOT_FOUND`, …).
    case server(status: Int, code: String, message: String)
    /// Hearth could not be reached or answered something unreadable.
    case transport(String)

    public var description: String {
        switch self {
        case .invalidToken(let reason): "invalid token: \(reason)"
        case .tokenExpired: "the token has expired"
        case .tokenRevoked: "the token has been revoked"
        case .userDisabled: "the user is disabled"
        case .invalidCredentials(let reason): "invalid credentials: \(reason)"
        case .server(let status, let code, let message): "Hearth answered \(status) \(code): \(message)"
        case .transport(let reason): "transport: \(reason)"
        }
    }
}
