import Foundation
import HearthCore
import HearthProviders

/// `accounts:signInWithGameCenter`: GameKit's signed identity of the local player signs in, signs up, or (with
/// `idToken`) links Game Center to the signed-in account; the account rules are signInWithIdp's.
public struct GameCenterSignInRequest: Sendable {
    public var credential: GameCenterCredential
    public var idToken: String?

    public init(credential: GameCenterCredential, idToken: String? = nil) {
        self.credential = credential
        self.idToken = idToken
    }
}

extension AuthEngine {
    public func signInWithGameCenter(_ request: GameCenterSignInRequest, origin: RequestOrigin) async throws
        -> IdPSignInResult
    {
        guard let settings = origin.project.federation.gameCenter, !settings.bundleIds.isEmpty else {
            throw AuthError(.operationNotAllowed, "Game Center sign-in is not enabled for this project.")
        }
        let identity = try await identityProviders.verifyGameCenter(request.credential, settings: settings)
        // A signature (its salt) is accepted once while it is fresh.
        try await useOnce(identity, origin: origin)
        return try await retryingOnConflict {
            try await applyIdentity(
                identity, IdPSignInRequest(credential: nil, idToken: request.idToken), origin: origin)
        }
    }
}
