import Foundation

/// The domain of every `NSError` HearthAuth reports, the same string FirebaseAuth uses.
public let AuthErrorDomain = "FIRAuthErrorDomain"
/// The `ERROR_…` name of the code.
public let AuthErrorUserInfoNameKey = "FIRAuthErrorUserInfoNameKey"
/// The e-mail address of the existing account (on `accountExistsWithDifferentCredential`,
/// `credentialAlreadyInUse`, `emailAlreadyInUse`).
public let AuthErrorUserInfoEmailKey = "FIRAuthErrorUserInfoEmailKey"
/// The credential to recover with, such as the one to sign in with after `credentialAlreadyInUse`.
public let AuthErrorUserInfoUpdatedCredentialKey = "FIRAuthErrorUserInfoUpdatedCredentialKey"
/// The `MultiFactorResolver` on `secondFactorRequired`.
public let AuthErrorUserInfoMultiFactorResolverKey = "FIRAuthErrorUserInfoMultiFactorResolverKey"

/// FirebaseAuth's namespace for the same constants.
public enum AuthErrors {
    public static let domain = AuthErrorDomain
    public static let userInfoNameKey = AuthErrorUserInfoNameKey
    public static let userInfoEmailKey = AuthErrorUserInfoEmailKey
    public static let userInfoUpdatedCredentialKey = AuthErrorUserInfoUpdatedCredentialKey
    public static let userInfoMultiFactorResolverKey = AuthErrorUserInfoMultiFactorResolverKey
}

extension AuthErrorCode {
    /// The `NSError` callers receive: FirebaseAuth's domain, code, name key and description.
    func error(message: String? = nil, userInfo extra: [String: Any] = [:], underlying: Error? = nil) -> NSError {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: message.flatMap { $0.isEmpty ? nil : $0 } ?? defaultMessage,
            AuthErrorUserInfoNameKey: errorName,
        ]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        info.merge(extra) { $1 }
        return NSError(domain: AuthErrorDomain, code: rawValue, userInfo: info)
    }
}

extension Error {
    /// The HearthAuth code of an error, if it is one.
    var authErrorCode: AuthErrorCode? {
        let error = self as NSError
        guard error.domain == AuthErrorDomain else { return nil }
        return AuthErrorCode(rawValue: error.code)
    }
}
