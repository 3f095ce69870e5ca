/// E-mail and password credentials, for linking and re-authentication.
public enum EmailAuthProvider {
    public static let id = AuthProviderID.email.rawValue

    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailAuthCredential(email: email, password: password)
    }
}

/// An e-mail and password, from `EmailAuthProvider.credential(withEmail:password:)`.
public final class EmailAuthCredential: AuthCredential, @unchecked Sendable {
    public let email: String
    let password: String

    init(email: String, password: String) {
        self.email = email
        self.password = password
        super.init(provider: AuthProviderID.email.rawValue)
    }
}
