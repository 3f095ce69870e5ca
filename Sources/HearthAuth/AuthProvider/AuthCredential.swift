import Foundation

/// Proof of identity handed to `signIn(with:)`, `link(with:)` or `reauthenticate(with:)`.
///
/// Credentials are immutable values shaped as FirebaseAuth's class hierarchy (`OAuthCredential`,
/// `PhoneAuthCredential`), so `as?` casts in existing code keep working.
// @unchecked: a class hierarchy cannot be checked Sendable, but every stored property here and in
// the module's (final) subclasses is a `let` of a Sendable type, and no subclass exists elsewhere.
public class AuthCredential: @unchecked Sendable {
    /// The provider id, `apple.com`, `password`, `phone`….
    public let provider: String

    init(provider: String) {
        self.provider = provider
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

/// Tokens from an OAuth or OpenID Connect identity provider (Apple, Google, Facebook, any OIDC).
public final class OAuthCredential: AuthCredential, @unchecked Sendable {
    /// The provider's OpenID Connect ID token.
    public let idToken: String?
    /// The provider's OAuth access token.
    public let accessToken: String?
    /// The OAuth 1 token secret (Twitter).
    public let secret: String?
    /// The unhashed nonce whose SHA-256 went into the provider's ID token.
    public let rawNonce: String?
    /// The name Apple gives only on the first sign-in; sent so the server can store it.
    public let fullName: PersonNameComponents?
    /// The server's handle for a credential it has already verified (from an error's
    /// `AuthErrorUserInfoUpdatedCredentialKey`).
    let pendingToken: String?

    init(
        providerID: String, idToken: String? = nil, accessToken: String? = nil, secret: String? = nil,
        rawNonce: String? = nil, fullName: PersonNameComponents? = nil, pendingToken: String? = nil
    ) {
        self.idToken = idToken
        self.accessToken = accessToken
        self.secret = secret
        self.rawNonce = rawNonce
        self.fullName = fullName
        self.pendingToken = pendingToken
        super.init(provider: providerID)
    }

    /// The credential a sign-in answer hands back (for `AuthDataResult.credential` and the
    /// `credentialAlreadyInUse` recovery path), or nil when the answer carries no provider token.
    convenience init?(idpResponse r: JSON) {
        let idToken = r["oauthIdToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = r["oauthAccessToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let secret = r["oauthTokenSecret"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let pendingToken = r["pendingToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        guard idToken != nil || accessToken != nil || secret != nil || pendingToken != nil else { return nil }
        self.init(
            providerID: r["providerId"]?.string ?? OAuthProvider.id, idToken: idToken, accessToken: accessToken,
            secret: secret, pendingToken: pendingToken)
    }
}

/// A phone number proven by an SMS code, or by a temporary proof the server issued when the number
/// turned out to belong to another account.
public final class PhoneAuthCredential: AuthCredential, @unchecked Sendable {
    enum Proof: Sendable, Equatable {
        case verification(id: String, code: String)
        case temporaryProof(phoneNumber: String, proof: String)
    }

    let proof: Proof

    init(_ proof: Proof) {
        self.proof = proof
        super.init(provider: AuthProviderID.phone.rawValue)
    }
}
