import Foundation

#if canImport(GameKit)
    import GameKit
#endif

/// Game Center sign-in: the local player's identity-verification signature, which the server checks
/// against Apple's public key (`accounts:signInWithGameCenter`). GameKit exists on Apple platforms
/// only; elsewhere `getCredential` fails with `gameKitNotLinked`, as FirebaseAuth does in an app
/// that does not link GameKit.
public enum GameCenterAuthProvider {
    public static let id = AuthProviderID.gameCenter.rawValue

    public static func getCredential() async throws -> AuthCredential {
        #if canImport(GameKit) && !os(watchOS)
            let player = GKLocalPlayer.local
            guard player.isAuthenticated else { throw AuthErrorCode.localPlayerNotAuthenticated.error() }
            let items = try await player.fetchItemsForIdentityVerificationSignature()
            return GameCenterAuthCredential(
                teamPlayerID: player.teamPlayerID, gamePlayerID: player.gamePlayerID, publicKeyURL: items.0,
                signature: items.1, salt: items.2, timestamp: items.3, displayName: player.displayName)
        #else
            throw AuthErrorCode.gameKitNotLinked.error()
        #endif
    }

    public static func getCredential(completion: @escaping @MainActor @Sendable (AuthCredential?, Error?) -> Void) {
        complete(completion) { try await getCredential() }
    }
}

/// The local player's signed identity, from `GameCenterAuthProvider.getCredential()`.
final class GameCenterAuthCredential: AuthCredential, @unchecked Sendable {
    let teamPlayerID: String
    let gamePlayerID: String
    let publicKeyURL: URL
    let signature: Data
    let salt: Data
    /// Milliseconds since 1970, as GameKit gives it.
    let timestamp: UInt64
    let displayName: String

    init(
        teamPlayerID: String, gamePlayerID: String, publicKeyURL: URL, signature: Data, salt: Data,
        timestamp: UInt64, displayName: String
    ) {
        self.teamPlayerID = teamPlayerID
        self.gamePlayerID = gamePlayerID
        self.publicKeyURL = publicKeyURL
        self.signature = signature
        self.salt = salt
        self.timestamp = timestamp
        self.displayName = displayName
        super.init(provider: GameCenterAuthProvider.id)
    }

    /// The `accounts:signInWithGameCenter` body, field for field as FirebaseAuth sends it.
    func body(idToken: String?) -> [String: JSON] {
        var body: [String: JSON] = [
            "publicKeyUrl": .string(publicKeyURL.absoluteString),
            "signature": .string(signature.base64EncodedString()),
            "salt": .string(salt.base64EncodedString()),
            "teamPlayerId": .string(teamPlayerID),
            "gamePlayerId": .string(gamePlayerID),
            "displayName": .string(displayName),
        ]
        if timestamp != 0 { body["timestamp"] = .number(Double(timestamp)) }
        if let idToken { body["idToken"] = .string(idToken) }
        return body
    }
}
