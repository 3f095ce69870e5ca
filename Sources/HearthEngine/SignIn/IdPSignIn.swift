import Crypto
import Foundation
import HearthCore
import HearthProviders
import HearthStore
import HearthTokens

/// `accounts:signInWithIdp` (v3 `verifyAssertion`): a provider credential signs in, signs up, links to the
/// signed-in account (`idToken`), or re-authenticates (`autoCreate: false`).
public struct IdPSignInRequest: Sendable {
    /// The provider credential from `postBody`/`requestUri`; nil when only a pending token is presented.
    public var credential: ProviderCredential?
    /// A credential Hearth handed back earlier (with needConfirmation or an already-linked error).
    public var pendingToken: String?
    /// The end of a browser sign-in (`/__/auth/handler` or `createAuthUri`): the code to exchange.
    public var browserResponse: BrowserSignInResponse?
    /// Links the identity to this signed-in account; with `autoCreate: false`, names the user re-authenticating.
    public var idToken: String?
    /// False for re-authentication: never creates an account.
    public var autoCreate: Bool
    /// Answer some errors as 200 with `errorMessage` and the credential, so the client can retry with it.
    public var returnIdpCredential: Bool

    public init(
        credential: ProviderCredential?, pendingToken: String? = nil, browserResponse: BrowserSignInResponse? = nil,
        idToken: String? = nil, autoCreate: Bool = true, returnIdpCredential: Bool = false
    ) {
        self.credential = credential
        self.pendingToken = pendingToken
        self.browserResponse = browserResponse
        self.idToken = idToken
        self.autoCreate = autoCreate
        self.returnIdpCredential = returnIdpCredential
    }
}

public struct IdPSignInResult: Sendable {
    public var identity: FederatedIdentity
    public var user: UserRecord?
    public var tokens: SessionTokens?
    public var isNewUser = false
    /// The e-mail belongs to another account and the provider did not verify it: the user must sign in to that
    /// account and link (the SDK's accountExistsWithDifferentCredential).
    public var needConfirmation = false
    /// The existing account's providers, with needConfirmation.
    public var verifiedProviders: [String] = []
    /// The existing account's uid, with needConfirmation (the emulator answers it as `localId`).
    public var existingUID: String?
    /// The provider gave this e-mail to another of its users before (an account with the same e-mail is linked
    /// to a different id at the same provider).
    public var emailRecycled = false
    /// An error Firebase reports in a 200 answer (`errorMessage`) when the client asked for the credential back.
    public var error: AuthError?
    /// A single-use stand-in for the verified credential, for the client to sign in with after an error.
    public var pendingToken: String?
    /// Set instead of `tokens` when the user has second factors: the sign-in continues at `mfaSignIn`.
    public var challenge: SecondFactorChallenge? = nil
    /// The provider's tokens from a browser sign-in's code exchange, for `oauthAccessToken`/`oauthIdToken`.
    public var providerTokens: (accessToken: String?, idToken: String?, secret: String?)? = nil
}

extension AuthEngine {
    /// How long a pending credential handed back with an error can be redeemed.
    static let pendingTokenLifetime: TimeInterval = 600
    static let pendingTokenType = "hearth.pending_idp"

    public func signInWithIdp(_ request: IdPSignInRequest, origin: RequestOrigin) async throws -> IdPSignInResult {
        let identity: FederatedIdentity
        var providerTokens: (accessToken: String?, idToken: String?, secret: String?)?
        if let pending = request.pendingToken.nonEmpty {
            identity = try await redeemPendingToken(pending, origin: origin)
        } else if let response = request.browserResponse {
            let redeemed = try await redeemBrowserSignIn(response, origin: origin)
            identity = redeemed.identity
            providerTokens = (redeemed.accessToken, redeemed.idToken, redeemed.tokenSecret)
        } else {
            guard let credential = request.credential else {
                throw AuthError(.invalidCredentialOrProviderID, "Invalid IdP response/credential.")
            }
            identity = try await identityProviders.verify(
                credential, settings: origin.project.federation, emulator: origin.emulator)
            try await useOnce(identity, origin: origin)
        }
        // What the blocking functions of this sign-in are told about the provider.
        let details = FederatedSignInDetails(
            rawUserInfo: identity.rawUserInfo, idToken: request.credential?.idToken ?? providerTokens?.idToken,
            accessToken: request.credential?.accessToken ?? providerTokens?.accessToken,
            tokenSecret: request.credential?.tokenSecret ?? providerTokens?.secret,
            signInAttributes: identity.signInAttributes)
        return try await Self.$federatedSignIn.withValue(details) {
            do {
                var result = try await retryingOnConflict { try await applyIdentity(identity, request, origin: origin) }
                if result.needConfirmation {
                    result.pendingToken = try await issuePendingToken(identity, origin: origin)
                }
                result.providerTokens = providerTokens
                return result
            } catch let error as AuthError
                where request.returnIdpCredential
                && [.federatedUserIDAlreadyLinked, .emailExists].contains(error.code)
            {
                var result = IdPSignInResult(
                    identity: identity, error: error,
                    pendingToken: try await issuePendingToken(identity, origin: origin))
                result.providerTokens = providerTokens
                return result
            }
        }
    }

    /// A provider token with a nonce is accepted once: a captured token cannot be replayed while it is valid.
    func useOnce(_ identity: FederatedIdentity, origin: RequestOrigin) async throws {
        guard !origin.emulator, let nonce = identity.tokenNonce else { return }
        let now = clock.now()
        // Kept past the token's expiry plus the clock skew verification tolerates.
        let until = max(identity.tokenExpiresAt ?? now, now).addingTimeInterval(120)
        let key =
            "idp:" + Self.digest("\(origin.project.projectID)\n\(identity.providerID)\n\(identity.rawID)\n\(nonce)")
        guard try await store.claimSingleUse(key, until: until, now: now) else {
            logger.notice("provider token replayed", metadata: ["provider": "\(identity.providerID)"])
            throw AuthError(
                .missingOrInvalidNonce, "Duplicate credential received. Please try again with a new credential.")
        }
    }

    /// Firebase's account rules for a verified identity.
    func applyIdentity(_ identity: FederatedIdentity, _ request: IdPSignInRequest, origin: RequestOrigin)
        async throws -> IdPSignInResult
    {
        let project = origin.project
        let oneAccountPerEmail = !project.federation.allowDuplicateEmails
        let owner = try await store.user(
            projectID: project.projectID, providerID: identity.providerID, rawID: identity.rawID)

        if let idToken = request.idToken.nonEmpty {
            var (current, _) = try await authenticatedUser(idToken: idToken, origin: origin)
            if !request.autoCreate {
                // Re-authentication of the signed-in user: the credential must be theirs.
                guard let owner else { throw AuthError(.userNotFound) }
                guard owner.uid == current.uid else { throw AuthError(.userMismatch) }
                return try await signIn(owner, with: identity, origin: origin)
            }
            if owner != nil { throw AuthError(.federatedUserIDAlreadyLinked) }
            if current.providers.contains(where: { $0.providerID == identity.providerID }) {
                throw AuthError(.providerAlreadyLinked)
            }
            if oneAccountPerEmail, let email = identity.email,
                let holder = try await store.user(projectID: project.projectID, email: email), holder.uid != current.uid
            {
                throw AuthError(.emailExists)
            }
            if oneAccountPerEmail, current.email == nil, let email = identity.email {
                current.email = email
                current.emailVerified = identity.emailVerified
            }
            if identity.emailVerified, current.email == identity.email { current.emailVerified = true }
            current.providers.append(Self.link(identity, merging: nil))
            if current.displayName == nil { current.displayName = identity.displayName }
            if current.photoURL == nil { current.photoURL = identity.photoURL }
            current.lastLoginAt = clock.now()
            try await save(&current)
            logger.info(
                "provider linked", metadata: ["uid": "\(current.uid)", "provider": "\(identity.providerID)"])
            let tokens = try await startSession(for: current, provider: identity.providerID, origin: origin)
            return IdPSignInResult(identity: identity, user: current, tokens: tokens)
        }

        if let owner { return try await signIn(owner, with: identity, origin: origin) }

        if oneAccountPerEmail, let email = identity.email,
            var holder = try await store.user(projectID: project.projectID, email: email)
        {
            guard identity.emailVerified else {
                var result = IdPSignInResult(identity: identity, needConfirmation: true)
                result.verifiedProviders = holder.providers.map(\.providerID)
                result.existingUID = holder.uid
                return result
            }
            if holder.disabled {
                throw refusedSignIn(holder.uid, provider: identity.providerID, .userDisabled, origin: origin)
            }
            let recycled = holder.providers.contains {
                $0.providerID == identity.providerID && $0.rawID != identity.rawID
            }
            let takesOver = !holder.emailVerified
            if takesOver {
                // Whoever set the password never proved the address; the provider has. The provider's user takes
                // the account over: the password, phone and other links go, and every earlier session ends.
                holder.passwordHash = nil
                holder.passwordUpdatedAt = nil
                holder.phoneNumber = nil
                holder.providers = []
                holder.validSince = nowSecond()
                logger.notice(
                    "unverified account taken over by a verified provider e-mail",
                    metadata: ["uid": "\(holder.uid)", "provider": "\(identity.providerID)"])
            }
            holder.providers.removeAll { $0.providerID == identity.providerID }
            holder.providers.append(Self.link(identity, merging: nil))
            holder.emailVerified = true
            // Firebase's rule: the profile becomes the provider's, what it does not send is dropped (after a
            // takeover it was set by whoever never proved the address).
            holder.displayName = identity.displayName
            holder.photoURL = identity.photoURL
            holder.screenName = identity.screenName
            holder.lastLoginAt = clock.now()
            try await save(&holder)
            if takesOver { try await endSessions(of: holder.uid, projectID: project.projectID) }
            let done = try await finishFirstFactor(for: holder, provider: identity.providerID, origin: origin)
            return IdPSignInResult(
                identity: identity, user: holder, tokens: done.tokens, emailRecycled: recycled,
                challenge: done.challenge)
        }

        guard request.autoCreate else { throw AuthError(.userNotFound) }
        try await consumeLimit(
            "signup:ip:\(origin.clientIP ?? "-")", limit: project.rateLimits.signUpsPerIPPerHour, windowSeconds: 3600)
        let now = clock.now()
        // With duplicate e-mails allowed the address stays on the provider link only, as Firebase does.
        let email = oneAccountPerEmail ? identity.email : nil
        var user = UserRecord(
            projectID: project.projectID, uid: random.uid(), email: email,
            emailVerified: email != nil && identity.emailVerified, displayName: identity.displayName,
            photoURL: identity.photoURL, validSince: nowSecond(), createdAt: now, lastLoginAt: now,
            providers: [Self.link(identity, merging: nil)])
        user.screenName = identity.screenName
        try await runBeforeCreate(&user, provider: identity.providerID, origin: origin)
        do {
            try await store.insertUser(user)
        } catch StoreError.federatedIDExists, StoreError.emailExists {
            // A concurrent first sign-in of the same identity (or e-mail) created the account first: the state read
            // above is stale, so run the rules again as for any concurrent change; they find the new account.
            throw StoreError.versionConflict
        } catch {
            throw mapStoreError(error)
        }
        noteSignUp(user, provider: identity.providerID, origin: origin)
        logger.info(
            "account created",
            metadata: ["project": "\(project.projectID)", "uid": "\(user.uid)", "provider": "\(identity.providerID)"])
        let tokens = try await startSession(for: user, provider: identity.providerID, origin: origin)
        return IdPSignInResult(identity: identity, user: user, tokens: tokens, isNewUser: true)
    }

    /// Signs in the account the identity is linked to, refreshing the provider profile without losing what the
    /// provider sends only once (Apple's name arrives on the first sign-in only).
    private func signIn(_ owner: UserRecord, with identity: FederatedIdentity, origin: RequestOrigin) async throws
        -> IdPSignInResult
    {
        var user = owner
        if user.disabled { throw refusedSignIn(user.uid, provider: identity.providerID, .userDisabled, origin: origin) }
        let existing = user.providers.first { $0.providerID == identity.providerID && $0.rawID == identity.rawID }
        let updated = Self.link(identity, merging: existing)
        if updated != existing || (user.displayName == nil && identity.displayName != nil) {
            user.providers.removeAll { $0.providerID == identity.providerID && $0.rawID == identity.rawID }
            user.providers.append(updated)
            if user.displayName == nil { user.displayName = identity.displayName }
            if user.photoURL == nil { user.photoURL = identity.photoURL }
            if !needsSecondFactor(user, origin: origin) { user.lastLoginAt = clock.now() }
            try await save(&user)
        } else if !needsSecondFactor(user, origin: origin) {
            user.lastLoginAt = clock.now()
            try await recordSignIn(projectID: user.projectID, uid: user.uid, at: clock.now())
        }
        let done = try await finishFirstFactor(for: user, provider: identity.providerID, origin: origin)
        return IdPSignInResult(identity: identity, user: user, tokens: done.tokens, challenge: done.challenge)
    }

    /// The stored link for an identity; fields the provider did not send this time keep their earlier values.
    static func link(_ identity: FederatedIdentity, merging existing: ProviderUserInfo?) -> ProviderUserInfo {
        ProviderUserInfo(
            providerID: identity.providerID, rawID: identity.rawID, federatedID: identity.rawID,
            email: identity.email ?? existing?.email, displayName: identity.displayName ?? existing?.displayName,
            photoURL: identity.photoURL ?? existing?.photoURL,
            isPrivateEmail: identity.email == nil ? existing?.isPrivateEmail ?? false : identity.isPrivateEmail)
    }

    // MARK: Pending credentials

    /// A short-lived, single-use credential for an identity Hearth has verified, signed with the project's key
    /// ring. The SDK sends it back (`pendingToken`) when it retries with the credential from an error, since the
    /// provider's own token cannot be presented twice.
    func issuePendingToken(_ identity: FederatedIdentity, origin: RequestOrigin) async throws -> String {
        let now = clock.now()
        var payload: [String: JSONValue] = [
            "typ": .string(Self.pendingTokenType), "aud": .string(origin.project.projectID),
            "exp": .number(Double(now.addingTimeInterval(Self.pendingTokenLifetime).secondsSince1970)),
            "jti": .string(random.token(bytes: 16)), "provider_id": .string(identity.providerID),
            "raw_id": .string(identity.rawID), "federated_id": .string(identity.federatedID),
            "email_verified": .bool(identity.emailVerified), "raw_user_info": .object(identity.rawUserInfo),
            "is_private_email": .bool(identity.isPrivateEmail),
        ]
        for (key, value) in [
            ("email", identity.email), ("name", identity.displayName), ("given_name", identity.firstName),
            ("family_name", identity.lastName), ("picture", identity.photoURL), ("screen_name", identity.screenName),
        ] {
            if let value { payload[key] = .string(value) }
        }
        let signer = try await idTokens.keyRing.signer()
        return try JWS.signRS256(payload: .object(payload), kid: signer.kid, key: signer.privateKey)
    }

    func redeemPendingToken(_ token: String, origin: RequestOrigin) async throws -> FederatedIdentity {
        let now = clock.now()
        guard let parsed = JWS.parse(token), parsed.header["alg"]?.stringValue == "RS256",
            let kid = parsed.header["kid"]?.stringValue, let key = await idTokens.keyRing.verificationKey(kid: kid),
            JWS.verifyRS256(parsed, key: key.publicKey)
        else { throw AuthError(.invalidPendingToken) }
        let p = parsed.payload
        guard p["typ"]?.stringValue == Self.pendingTokenType, p["aud"]?.stringValue == origin.project.projectID,
            let exp = p["exp"]?.doubleValue, exp > now.timeIntervalSince1970, JWS.hasStarted(p, now: now, skew: 0),
            let jti = p["jti"]?.stringValue,
            let provider = p["provider_id"]?.stringValue, let rawID = p["raw_id"]?.stringValue
        else { throw AuthError(.invalidPendingToken) }
        guard
            try await store.claimSingleUse(
                "pending:" + Self.digest(jti), until: Date(timeIntervalSince1970: exp + 60), now: now)
        else { throw AuthError(.invalidPendingToken) }
        return FederatedIdentity(
            providerID: provider, rawID: rawID, federatedID: p["federated_id"]?.stringValue,
            email: p["email"]?.stringValue, emailVerified: p["email_verified"]?.boolValue ?? false,
            isPrivateEmail: p["is_private_email"]?.boolValue ?? false,
            displayName: p["name"]?.stringValue, firstName: p["given_name"]?.stringValue,
            lastName: p["family_name"]?.stringValue, photoURL: p["picture"]?.stringValue,
            rawUserInfo: p["raw_user_info"]?.objectValue ?? [:], screenName: p["screen_name"]?.stringValue)
    }

    static func digest(_ text: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(text.utf8)).withUnsafeBytes { Array($0) })
    }
}
