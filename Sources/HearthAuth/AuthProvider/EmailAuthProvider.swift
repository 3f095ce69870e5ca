/// E-mail and password credentials, for linking and re-authentication.
public enum EmailAuthProvider {
    public static let id = AuthProviderID.email.rawValue

    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailAuthCredential(email: email, password: password)
    }

    /// An e-mail sign-in link and the address it was sent to.
    public static func credential(withEmail email: String, link: String) -> AuthCredential {
        EmailAuthCredential(email: email, link: link)
    }
}

/// An e-mail and password (`credential(withEmail:password:)`) or an e-mail and sign-in link
/// (`credential(withEmail:link:)`).
public final class EmailAuthCredential: AuthCredential, @unchecked Sendable {
    public let email: String
    let password: String?
    let link: String?

    init(email: String, password: String) {
        self.email = email
        self.password = password
        self.link = nil
        super.init(provider: AuthProviderID.email.rawValue)
    }

    init(email: String, link: String) {
        self.email = email
        self.password = nil
        self.link = link
        super.init(provider: AuthProviderID.email.rawValue)
    }

    /// The `oobCode` of a link credential.
    var linkCode: String? { link.flatMap { ActionCodeURL.queryItems($0)["oobCode"] } }
}
