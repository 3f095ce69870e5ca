import Foundation
import HearthCore
import HearthEngine
import HearthProviders
import Hummingbird

/// Federated sign-in: `accounts:signInWithIdp` (v3 `verifyAssertion`), `accounts:signInWithGameCenter` and
/// `v2/accounts:revokeToken`.
extension AuthRoutes {
    /// The URL to give Apple for Sign in with Apple server-to-server notifications. Apple sends no API key;
    /// the notification is a JWS verified with Apple's keys and the project's client ids.
    func registerAppleNotifications(on router: HearthRouter) {
        router.post("/hearth/v1/projects/{project}/appleNotifications") { request, context in
            let projectID = try context.parameters.require("project")
            guard let project = engine.projects.config(projectID) else {
                throw AuthError(.invalidProjectID, "Project ID does not match: \(projectID)")
            }
            let wire = try await WireRequest.decode(request, context: context)
            try await engine.handleAppleNotification(payload: try wire.string("payload"), project: project)
            return WireResponse.json([:])
        }
    }

    func revokeToken(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        // The iOS SDK sends tokenType as a string of the enum's number; others send the enum name.
        let tokenType: String? =
            switch wire.fields["tokenType"] {
            case .number(let n)?: String(Int(n))
            default: try wire.string("tokenType")
            }
        try await engine.revokeProviderToken(
            RevokeProviderTokenRequest(
                idToken: try wire.string("idToken"), providerID: try wire.string("providerId"), tokenType: tokenType,
                token: try wire.string("token")),
            origin: origin)
        return [:]
    }

    func signInWithIdp(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let pendingToken = try wire.string("pendingToken")
        let returnIdpCredential = try wire.bool("returnIdpCredential") ?? false
        let browserResponse = try Self.browserResponse(
            requestURI: wire.string("requestUri"), sessionID: wire.string("sessionId"))
        let credential =
            browserResponse != nil
            ? nil
            : try Self.providerCredential(
                requestURI: wire.string("requestUri"), postBody: wire.string("postBody"),
                required: pendingToken?.isEmpty ?? true)
        let result = try await engine.signInWithIdp(
            IdPSignInRequest(
                credential: credential, pendingToken: pendingToken, browserResponse: browserResponse,
                idToken: try wire.string("idToken"), autoCreate: try wire.bool("autoCreate") ?? true,
                returnIdpCredential: returnIdpCredential),
            origin: origin)

        let identity = result.identity
        let user = result.user
        // The emulator always answers an access token, so clients that build credentials from it keep working.
        let oauthAccessToken =
            credential?.accessToken ?? result.providerTokens?.accessToken
            ?? (origin.emulator ? "FirebaseAuthEmulatorFakeAccessToken_\(identity.providerID)" : nil)
        let fullName = [identity.firstName, identity.lastName].compactMap { $0 }.joined(separator: " ")
        var emailVerified = identity.emailVerified
        if let user, user.email == identity.email { emailVerified = user.emailVerified }
        let response = JSONValue.compact([
            "kind": "identitytoolkit#VerifyAssertionResponse",
            "providerId": .string(identity.providerID),
            "federatedId": .string(identity.federatedID),
            // With needConfirmation only the emulator names the account: a production answer would tell anyone
            // who can make a provider claim an address which account holds it.
            "localId": .text(user?.uid ?? (origin.emulator ? result.existingUID : nil)),
            "tenantId": .text(user.flatMap { TenantScope.split($0.projectID).tenant }),
            "email": .text(identity.email),
            "emailVerified": .bool(emailVerified),
            "displayName": .text(identity.displayName),
            "fullName": .text(fullName.isEmpty ? identity.displayName : fullName),
            "firstName": .text(identity.firstName),
            "lastName": .text(identity.lastName),
            "photoUrl": .text(identity.photoURL),
            "screenName": .text(identity.screenName),
            "rawUserInfo": .string(JSONValue.object(identity.rawUserInfo).jsonText),
            "isNewUser": result.tokens == nil && result.challenge == nil ? nil : .bool(result.isNewUser),
            "needConfirmation": result.needConfirmation ? .bool(true) : nil,
            "verifiedProvider": result.needConfirmation ? .array(result.verifiedProviders.map(JSONValue.string)) : nil,
            "emailRecycled": result.emailRecycled ? .bool(true) : nil,
            "errorMessage": .text(result.error?.message),
            "pendingToken": .text(result.pendingToken),
            "oauthIdToken": returnIdpCredential || origin.emulator
                ? .text(credential?.idToken ?? result.providerTokens?.idToken) : nil,
            "oauthAccessToken": returnIdpCredential || origin.emulator ? .text(oauthAccessToken) : nil,
            "oauthTokenSecret": returnIdpCredential
                ? .text(credential?.tokenSecret ?? result.providerTokens?.secret) : nil,
        ])
        return UserEncoding.withSession(response, result.tokens, result.challenge)
    }

    func signInWithGameCenter(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        guard let url = try wire.string("publicKeyUrl"), let signature = try wire.bytes("signature"),
            let salt = try wire.bytes("salt"),
            let teamPlayerID = try wire.string("teamPlayerId") ?? wire.string("playerId")
        else {
            throw AuthError(
                .invalidIDPResponse, "Game Center sign-in needs publicKeyUrl, signature, salt and teamPlayerId.")
        }
        let result = try await engine.signInWithGameCenter(
            GameCenterSignInRequest(
                credential: GameCenterCredential(
                    publicKeyURL: url, signature: signature, salt: salt,
                    timestamp: UInt64(max(0, try wire.int("timestamp") ?? 0)), teamPlayerID: teamPlayerID,
                    gamePlayerID: try wire.string("gamePlayerId"), displayName: try wire.string("displayName")),
                idToken: try wire.string("idToken")),
            origin: origin)
        let response = JSONValue.compact([
            "localId": .text(result.user?.uid),
            "playerId": .text(try wire.string("playerId")),
            "teamPlayerId": .string(teamPlayerID),
            "gamePlayerId": .text(try wire.string("gamePlayerId")),
            "displayName": .text(result.user?.displayName ?? result.identity.displayName),
            "isNewUser": .bool(result.isNewUser),
        ])
        return UserEncoding.withTokens(response, result.tokens)
    }

    /// The end of a browser sign-in: a `requestUri` whose query carries the provider's `code` and Hearth's `state`
    /// (the handler's link, or the `continueUri` of `createAuthUri` the provider redirected to), with `sessionId`.
    /// Nil for every other request URI.
    static func browserResponse(requestURI: String?, sessionID: String?) throws(AuthError) -> BrowserSignInResponse? {
        guard let requestURI, let components = URLComponents(string: requestURI),
            let query = components.percentEncodedQuery
        else { return nil }
        let params = WireRequest.parseForm(query)
        // OAuth 1.0a (Twitter) returns `oauth_token` and `oauth_verifier` to a createAuthUri continueUri.
        guard let state = (params["state"] ?? params["oauthToken"])?.stringValue, !state.isEmpty,
            let code = (params["code"] ?? params["oauthVerifier"])?.stringValue, !code.isEmpty
        else { return nil }
        return BrowserSignInResponse(state: state, code: code, sessionID: sessionID)
    }

    /// The provider credential in `requestUri` and `postBody` (form-encoded), as Firebase reads them: the
    /// request URI's query and fragment, then the post body, later values winning.
    static func providerCredential(requestURI: String?, postBody: String?, required: Bool) throws(AuthError)
        -> ProviderCredential?
    {
        guard let requestURI, !requestURI.isEmpty else {
            if required { throw AuthError(.missingRequestURI) }
            return nil
        }
        guard let components = URLComponents(string: requestURI), components.scheme != nil else {
            throw AuthError(.invalidRequestURI)
        }
        var params: [String: String] = [:]
        for source in [components.percentEncodedQuery, components.percentEncodedFragment, postBody] {
            guard let source, !source.isEmpty else { continue }
            for (key, value) in WireRequest.parseForm(source) { params[key] = value.stringValue }
        }
        guard let providerID = params["providerId"]?.lowercased(), !providerID.isEmpty else {
            if !required { return nil }
            throw AuthError(.invalidCredentialOrProviderID, "Invalid IdP response/credential: \(requestURI)")
        }
        var user: JSONValue?
        if let text = params["user"], !text.isEmpty {
            guard let parsed = try? JSONValue(parsing: text), parsed.objectValue != nil else {
                throw AuthError(.invalidIDPResponse, "The user field of the post body is not a JSON object.")
            }
            user = parsed
        }
        return ProviderCredential(
            providerID: providerID, idToken: params["idToken"].flatMap { $0.isEmpty ? nil : $0 },
            accessToken: params["accessToken"].flatMap { $0.isEmpty ? nil : $0 },
            tokenSecret: params["oauthTokenSecret"].flatMap { $0.isEmpty ? nil : $0 },
            rawNonce: params["nonce"].flatMap { $0.isEmpty ? nil : $0 }, appleUser: user,
            samlResponse: params["SAMLResponse"].flatMap { $0.isEmpty ? nil : $0 })
    }
}
