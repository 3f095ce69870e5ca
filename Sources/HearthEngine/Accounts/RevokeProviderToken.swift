import Foundation
import HearthCore
import HearthProviders

/// `v2/accounts:revokeToken`: the signed-in user revokes a provider token (Apple's, as App Store review
/// requires before an account is deleted).
public struct RevokeProviderTokenRequest: Sendable {
    public var idToken: String?
    public var providerID: String?
    /// `CODE`, `REFRESH_TOKEN`, `ACCESS_TOKEN`, or the numbers the iOS SDK sends (3, 1, 2).
    public var tokenType: String?
    public var token: String?

    public init(idToken: String?, providerID: String?, tokenType: String?, token: String?) {
        self.idToken = idToken
        self.providerID = providerID
        self.tokenType = tokenType
        self.token = token
    }
}

extension AuthEngine {
    public func revokeProviderToken(_ request: RevokeProviderTokenRequest, origin: RequestOrigin) async throws {
        let (user, _) = try await authenticatedUser(idToken: request.idToken, origin: origin)
        guard request.providerID == FederatedProvider.apple else {
            throw AuthError(.invalidProviderID, "Only apple.com tokens can be revoked.")
        }
        let kind: AppleTokenKind
        switch request.tokenType {
        case "CODE", "3": kind = .authorizationCode
        case "REFRESH_TOKEN", "1": kind = .refreshToken
        case "ACCESS_TOKEN", "2": kind = .accessToken
        default: throw AuthError(.invalidArgument, "tokenType must be CODE, REFRESH_TOKEN or ACCESS_TOKEN.")
        }
        guard let token = request.token.nonEmpty else { throw AuthError(.invalidArgument, "token is required.") }
        try await identityProviders.revokeAppleToken(token, kind: kind, settings: origin.project.federation)
        logger.info("Apple token revoked", metadata: ["uid": "\(user.uid)"])
    }
}
