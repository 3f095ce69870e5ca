import Foundation
import HearthCore
import HearthStore
import HearthTokens

extension AuthEngine {
    /// `accounts:signInWithCustomToken`: a JWT that a registered service account of this project signed
    /// (what the Admin SDKs' `createCustomToken` makes) signs the user in, creating them on first use.
    /// In emulator mode unsigned tokens are accepted too, as the Firebase Auth Emulator accepts them.
    public func signInWithCustomToken(_ token: String?, origin: RequestOrigin) async throws -> AccountResult {
        guard let token = token.nonEmpty else { throw AuthError(.missingCustomToken) }
        let (uid, claims) = try await verifyCustomToken(token, origin: origin)
        let project = origin.project
        let now = clock.now()
        let (user, isNew): (UserRecord, Bool) = try await retryingOnConflict {
            if var user = try await store.user(projectID: project.projectID, uid: uid) {
                if user.disabled {
                    throw refusedSignIn(user.uid, provider: ProviderID.custom, .userDisabled, origin: origin)
                }
                user.customAuth = true
                user.lastLoginAt = now
                try await save(&user)
                return (user, false)
            }
            let user = UserRecord(
                projectID: project.projectID, uid: uid, validSince: nowSecond(), createdAt: now, lastLoginAt: now,
                customAuth: true)
            do { try await store.insertUser(user) } catch StoreError.uidExists {
                // Created by a concurrent sign-in with the same token: sign in to that account instead.
                throw StoreError.versionConflict
            } catch { throw mapStoreError(error) }
            noteSignUp(user, provider: ProviderID.custom, origin: origin)
            logger.info(
                "account created", metadata: ["project": "\(project.projectID)", "uid": "\(uid)", "provider": "custom"])
            return (user, true)
        }
        let tokens = try await startSession(for: user, provider: ProviderID.custom, origin: origin, extraClaims: claims)
        return AccountResult(user: user, tokens: tokens, isNewUser: isNew)
    }

    /// The uid and serialized developer claims of a valid custom token.
    func verifyCustomToken(_ token: String, origin: RequestOrigin) async throws -> (uid: String, claims: String?) {
        // Firebase's emulator also takes the payload itself as plain JSON, to make tests easy to write.
        if isEmulator, token.hasPrefix("{") {
            guard case .object(let payload)? = try? JSONValue.parse(Array(token.utf8)) else {
                throw AuthError(
                    .invalidCustomToken, "Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.")
            }
            return try customTokenClaims(payload, origin: origin)
        }
        guard let parsed = JWS.parse(token) else {
            throw AuthError(.invalidCustomToken, "Invalid assertion format")
        }
        let p = parsed.payload
        guard p["aud"]?.stringValue == CustomClaims.customTokenAudience else {
            throw AuthError(
                .invalidCustomToken,
                "Invalid aud (audience); ID tokens and third-party tokens cannot be used with signInWithCustomToken.")
        }
        if !(isEmulator && parsed.header["alg"]?.stringValue == "none") {
            guard let kid = parsed.header["kid"]?.stringValue,
                let key = try await store.serviceAccountKey(keyID: kid), key.revokedAt == nil
            else { throw AuthError(.invalidCustomToken, "The token is not signed by a known service account key.") }
            guard key.projectID == origin.project.firebaseProjectID else { throw AuthError(.credentialMismatch) }
            guard p["iss"]?.stringValue == key.clientEmail, p["sub"]?.stringValue == key.clientEmail else {
                throw AuthError(.invalidCustomToken, "iss and sub must be the service account's client_email.")
            }
            guard ServiceAccountTokens.isSigned(parsed, by: key, now: clock.now()) else {
                throw AuthError(.invalidCustomToken, "Invalid signature, expired, or lifetime over one hour.")
            }
        }
        return try customTokenClaims(p, origin: origin)
    }

    /// The uid, tenant and developer claims of a custom token's payload, checked.
    private func customTokenClaims(_ p: [String: JSONValue], origin: RequestOrigin) throws -> (
        uid: String, claims: String?
    ) {
        guard p["uid"] != nil, p["uid"] != .null else { throw AuthError(.missingIdentifier) }
        guard let uid = p["uid"]?.stringValue, (1...Self.maxUIDLength).contains(uid.count) else {
            throw AuthError(.invalidCustomToken, "uid must be a string of 1 to \(Self.maxUIDLength) characters.")
        }
        // A token minted for a tenant signs in to that tenant only, and a tenant accepts only its own tokens.
        if (p["tenant_id"]?.stringValue).nonEmpty != origin.project.tenantID { throw AuthError(.tenantIDMismatch) }
        guard let claims = p["claims"], claims != .null else { return (uid, nil) }
        guard case .object(let object) = claims else { throw AuthError(.invalidClaims) }
        try CustomClaims.validate(object)
        let text = claims.jsonText
        if text.utf8.count > CustomClaims.maxLength { throw AuthError(.claimsTooLarge) }
        return (uid, object.isEmpty ? nil : text)
    }
}
