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
