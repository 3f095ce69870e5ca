import HearthCore
import HearthEngine

extension AuthRoutes {
    /// Secure Token `v1/token`: refresh. Snake_case fields, as Google answers them.
    func token(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.refresh(
            RefreshRequest(grantType: try wire.string("grantType"), refreshToken: try wire.string("refreshToken")),
            origin: origin)
        return [
            "access_token": .string(result.tokens.idToken),
            "expires_in": .string(String(result.tokens.expiresIn)),
            "token_type": "Bearer",
            "refresh_token": .string(result.tokens.refreshToken),
            "id_token": .string(result.tokens.idToken),
            "user_id": .string(result.user.uid),
            "project_id": .string(origin.project.projectNumber),
        ]
    }
}
