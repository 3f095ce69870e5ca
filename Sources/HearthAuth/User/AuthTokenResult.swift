import Foundation

/// An ID token with what it says: who, how they signed in, when, and the custom claims.
public final class AuthTokenResult: Sendable {
    public let token: String
    public let expirationDate: Date
    public let authDate: Date
    public let issuedAtDate: Date
    /// `password`, `phone`, `apple.com`, `anonymous`, `custom`…
    public let signInProvider: String
    /// The second factor used (`phone`, `totp`), or empty, as FirebaseAuth reports it.
    public let signInSecondFactor: String
    private let rawClaims: [String: JSON]

    /// Every claim of the token, custom claims included.
    public var claims: [String: Any] { rawClaims.mapValues(\.foundationValue) }

    init?(token: String) {
        guard let decoded = IDTokenClaims(token), let exp = decoded.date("exp"), let iat = decoded.date("iat") else {
            return nil
        }
        self.token = token
        rawClaims = decoded.claims
        expirationDate = exp
        issuedAtDate = iat
        authDate = decoded.date("auth_time") ?? iat
        signInProvider = decoded.claims["firebase"]?["sign_in_provider"]?.string ?? ""
        signInSecondFactor = decoded.claims["firebase"]?["sign_in_second_factor"]?.string ?? ""
    }
}
