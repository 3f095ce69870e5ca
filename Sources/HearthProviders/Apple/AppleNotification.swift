import Foundation
import HearthCore

/// One of Apple's server-to-server notifications for Sign in with Apple: a JWS from Apple whose `events` claim
/// says what the user did (`consent-revoked`, `account-delete`, `email-disabled`, `email-enabled`).
public struct AppleNotification: Sendable, Equatable {
    public var type: String
    /// The user's Apple `sub`.
    public var subject: String
    /// `jti`, or a digest of the payload: what makes a delivery unique.
    public var id: String
    public var issuedAt: Date

    public static let consentRevoked = "consent-revoked"
    public static let accountDelete = "account-delete"
    /// How old a notification may be; Apple retries undelivered ones for a while.
    public static let maxAge: TimeInterval = 86400
}

extension IdentityProviders {
    /// Verifies a notification's `payload` with Apple's keys and the project's client ids.
    public func verifyAppleNotification(_ payload: String, settings: FederationSettings) async throws
        -> AppleNotification
    {
        guard let apple = settings.apple else {
            throw AuthError(.operationNotAllowed, "The identity provider apple.com is not enabled for this project.")
        }
        let claims = try await ProviderTokenCheck(
            issuers: apple.issuers, audiences: apple.clientIds, keys: keySet(apple.keysUrl),
            maxAgeWithoutExpiry: AppleNotification.maxAge
        ).verify(payload, now: clock.now())
        // `events` is JSON text in Apple's notifications; accept an object as well.
        let events: JSONValue? =
            switch claims["events"] {
            case .string(let text)?: try? JSONValue(parsing: text)
            case let other?: other
            case nil: nil
            }
        guard let events, let type = events["type"]?.stringValue, let sub = events["sub"]?.stringValue, !sub.isEmpty,
            let iat = claims["iat"]?.doubleValue
        else { throw AuthError(.invalidIDPResponse, "The notification has no event.") }
        let id = claims["jti"]?.stringValue ?? String(payload.suffix(43))
        return AppleNotification(type: type, subject: sub, id: id, issuedAt: Date(timeIntervalSince1970: iat))
    }
}
