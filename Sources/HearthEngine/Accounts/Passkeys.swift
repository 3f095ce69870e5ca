import Crypto
import Foundation
import HearthCore
import HearthStore
import HearthWebAuthn

/// What a client sends back from `navigator.credentials.create` / `ASAuthorizationPlatformPublicKeyCredential…`
/// (`authenticatorRegistrationResponse`): the credential id as the client spelled it, and the response's bytes.
public struct PasskeyRegistrationResponse: Sendable {
    public var id: String?
    public var clientDataJSON: [UInt8]?
    public var attestationObject: [UInt8]?

    public init(id: String?, clientDataJSON: [UInt8]?, attestationObject: [UInt8]?) {
        self.id = id
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
    }
}

/// `authenticatorAuthenticationResponse`: the assertion of `navigator.credentials.get`.
public struct PasskeyAssertionResponse: Sendable {
    public var id: String?
    public var clientDataJSON: [UInt8]?
    public var authenticatorData: [UInt8]?
    public var signature: [UInt8]?
    public var userHandle: [UInt8]?

    public init(
        id: String?, clientDataJSON: [UInt8]?, authenticatorData: [UInt8]?, signature: [UInt8]?, userHandle: [UInt8]?
    ) {
        self.id = id
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// `credentialCreationOptions` of `passkeyEnrollment:start`, WebAuthn's `PublicKeyCredentialCreationOptions`.
public struct PasskeyCreationOptions: Sendable {
    public var rpID: String
    /// The emulator names its RP; production leaves the name to the client (the JS SDK fills it).
    public var rpName: String?
    public var userHandle: [UInt8]
    public var userName: String?
    public var userDisplayName: String?
    public var challenge: [UInt8]
    public var algorithms: [Int]
    public var timeoutMilliseconds: Int
    /// The user's enrolled credentials, which the authenticator must not enrol again.
    public var excludeCredentials: [[UInt8]]
    /// Production asks for a discoverable credential with user verification (Android stores passkeys only so).
    public var requiresResidentKey: Bool
}

/// `credentialRequestOptions` of `passkeySignIn:start`.
public struct PasskeyRequestOptions: Sendable {
    public var challenge: [UInt8]
    public var rpID: String
    public var timeoutMilliseconds: Int?
}

/// Passkeys (Identity Toolkit v2 `accounts/passkeyEnrollment:start|finalize`, `accounts/passkeySignIn:start|finalize`,
/// `deletePasskey` of `accounts:update`), verified by `HearthWebAuthn` against the project's `passkeyConfig`.
/// `--emulator` answers as the Firebase Auth Emulator does: RP `localhost`, no verification, its error codes.
extension AuthEngine {
    /// The provider id sessions started by a passkey carry (`firebase.sign_in_provider`).
    public static let passkeyProvider = "passkey"
    /// COSE algorithms offered and accepted: ES256, RS256, EdDSA.
    static let passkeyAlgorithms = [-7, -257, -8]
    static let passkeyTimeoutMilliseconds = Int(PasskeyChallenge.lifetime * 1000)
    /// WebAuthn allows user handles up to 64 bytes; 32 random bytes say nothing about the user.
    static let passkeyUserHandleLength = 32

    /// Starts enrolling a passkey for the signed-in user: a challenge for the authenticator, stored hashed.
    public func startPasskeyEnrollment(idToken: String?, origin: RequestOrigin) async throws -> PasskeyCreationOptions {
        if origin.emulator {
            guard idToken.nonEmpty != nil else { throw AuthError(.missingIDToken) }
            let (user, _) = try await authenticatedUser(idToken: idToken, origin: origin)
            // The emulator's challenge is the base64 of a random 32-character id, its user id the uid's bytes.
            return PasskeyCreationOptions(
                rpID: "localhost", rpName: "localhost", userHandle: Array(user.uid.utf8),
                userName: user.email ?? "user@example.com", userDisplayName: user.displayName ?? "User",
                challenge: Array(random.uid().prefix(32).utf8), algorithms: [-7, -257], timeoutMilliseconds: 60000,
                excludeCredentials: [], requiresResidentKey: false)
        }
        let rp = try relyingParty(origin)
        guard idToken.nonEmpty != nil else { throw AuthError(.missingIDToken) }
        let (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        try authorizeSignInMethodChange(of: user, token: token, origin: origin)
        guard user.passkeys.count < PasskeyCredential.limitPerUser else { throw AuthError(.passkeyLimitExceeded) }
        // One handle per user: a new user gets a random one, kept with each of its credentials.
        let handle = user.passkeys.first?.userHandle ?? random.bytes(Self.passkeyUserHandleLength)
        let challenge = try await issuePasskeyChallenge(.enrollment, uid: user.uid, userHandle: handle, origin: origin)
        let name = user.email ?? user.phoneNumber ?? user.displayName
        return PasskeyCreationOptions(
            rpID: rp.id, rpName: nil, userHandle: handle, userName: name, userDisplayName: user.displayName ?? name,
            challenge: challenge, algorithms: Self.passkeyAlgorithms,
            timeoutMilliseconds: Self.passkeyTimeoutMilliseconds,
            excludeCredentials: user.passkeys.map(\.credentialID), requiresResidentKey: true)
    }

    /// Verifies the authenticator's registration and adds the passkey to the user; answers a fresh session.
    public func finalizePasskeyEnrollment(
        idToken: String?, name: String?, displayName: String?, response: PasskeyRegistrationResponse?,
        origin: RequestOrigin
    ) async throws -> AccountResult {
        if !origin.emulator { _ = try relyingParty(origin) }
        // The emulator's order: the token's presence, the response's, then the token itself.
        guard idToken.nonEmpty != nil else { throw AuthError(.missingIDToken) }
        guard let response else { throw AuthError(.missingAuthenticatorResponse) }
        let (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        let label = name.nonEmpty ?? displayName.nonEmpty ?? "Unnamed Passkey"
        let passkey: PasskeyCredential
        if origin.emulator {
            // The emulator checks nothing but that an id is there and free; it keeps the id as text.
            guard let id = response.id.nonEmpty else { throw AuthError(.invalidCredentialID) }
            if try await store.user(projectID: origin.project.projectID, passkeyCredentialID: Array(id.utf8)) != nil {
                throw AuthError(.credentialAlreadyInUse)
            }
            passkey = PasskeyCredential(credentialID: Array(id.utf8), name: label, createdAt: clock.now())
        } else {
            try authorizeSignInMethodChange(of: user, token: token, origin: origin)
            passkey = try await verifiedRegistration(response, of: user, label: label, origin: origin)
        }
        let updated = try await retryingOnConflict {
            guard var current = try await store.user(projectID: origin.project.projectID, uid: user.uid) else {
                throw AuthError(.userNotFound)
            }
            if !origin.emulator {
                if current.passkeys.contains(where: { $0.credentialID == passkey.credentialID }) {
                    throw AuthError(.passkeyExists)
                }
                guard current.passkeys.count < PasskeyCredential.limitPerUser else {
                    throw AuthError(.passkeyLimitExceeded)
                }
            }
            current.passkeys.append(passkey)
            try await save(&current)
            return current
        }
        logger.info("passkey enrolled", metadata: ["uid": "\(user.uid)", "aaguid": "\(hex(passkey.aaguid))"])
        await sendPasskeyNotice(.passkeyAdded, passkeys: [passkey], user: updated, origin: origin)
        let tokens = try await startSession(for: updated, provider: Self.passkeyProvider, origin: origin, signIn: false)
        return AccountResult(user: updated, tokens: tokens, isNewUser: false)
    }

    /// A challenge for a passkey sign-in (discoverable credentials: no user is named yet).
    public func startPasskeySignIn(origin: RequestOrigin) async throws -> PasskeyRequestOptions {
        if origin.emulator {
            return PasskeyRequestOptions(
                challenge: Array(random.uid().prefix(32).utf8), rpID: "localhost", timeoutMilliseconds: nil)
        }
        let rp = try relyingParty(origin)
        let challenge = try await issuePasskeyChallenge(.signIn, uid: nil, userHandle: nil, origin: origin)
        return PasskeyRequestOptions(
            challenge: challenge, rpID: rp.id, timeoutMilliseconds: Self.passkeyTimeoutMilliseconds)
    }

    /// Verifies an assertion and signs its credential's owner in.
    public func finalizePasskeySignIn(_ response: PasskeyAssertionResponse?, origin: RequestOrigin) async throws
        -> AccountResult
    {
        let project = origin.project
        if origin.emulator {
            guard let response else { throw AuthError(.missingAuthenticatorResponse) }
            guard let id = response.id.nonEmpty else { throw AuthError(.invalidCredentialID) }
            guard let user = try await store.user(projectID: project.projectID, passkeyCredentialID: Array(id.utf8))
            else { throw AuthError(.passkeyCredentialNotFound) }
            if user.disabled { throw refusedSignIn(user.uid, provider: Self.passkeyProvider, .userDisabled, origin: origin) }
            return try await signInWithPasskey(user, origin: origin)
        }
        let rp = try relyingParty(origin)
        guard let response else { throw AuthError(.missingAuthenticatorResponse) }
        guard let clientData = response.clientDataJSON, let authenticatorData = response.authenticatorData,
            let signature = response.signature, let id = response.id.nonEmpty,
            let credentialID = Base64.decode(id), !credentialID.isEmpty
        else { throw AuthError(.invalidAuthenticatorResponse) }
        // The challenge is taken only with the sign-in's writes, in one transaction (`recordPasskeySignIn`), and
        // every refusal below takes it too: each outcome belongs to the one request that took it, and a challenge
        // taken before, expired, never issued or an enrolment's is PASSKEY_CHALLENGE_TIMEOUT whichever path finds it
        // so. It is looked at first only when `beforeSignIn` would otherwise be called for a stale or replayed
        // response; without that, looking first cost every sign-in a read of the store.
        let challenge = try Self.challenge(inClientData: clientData)
        let challengeHash = Self.passkeyChallengeHash(challenge)
        if origin.project.blockingFunctions.triggers["beforeSignIn"] != nil {
            try await requireLiveChallenge(challengeHash, purpose: .signIn, origin: origin)
        }
        guard let owner = try await passkeyOwner(credentialID, projectID: project.projectID),
            let passkey = owner.user.passkeys.first(where: { $0.credentialID == credentialID })
        else {
            try await takeChallenge(challengeHash, origin: origin)
            throw AuthError(.userNotFound)
        }
        let user = owner.user
        // The handle the authenticator keeps with a discoverable credential must be the one it was made for.
        guard let handle = response.userHandle, handle == passkey.userHandle else {
            try await takeChallenge(challengeHash, origin: origin)
            logger.notice("passkey sign-in refused: user handle differs", metadata: ["uid": "\(user.uid)"])
            throw refusedPasskeySignIn(of: user, origin: origin)
        }
        let assertion: VerifiedAssertion
        do {
            assertion = try WebAuthn.verifyAssertion(
                clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
                expectedChallenge: challenge, relyingParty: rp, credentialPublicKey: passkey.publicKey,
                storedSignCount: passkey.signCount)
        } catch {
            try await takeChallenge(challengeHash, origin: origin)
            if error.kind == .possibleClone {
                logger.warning(
                    "passkey sign-in refused: possible cloned authenticator",
                    metadata: ["uid": "\(user.uid)", "reason": "\(error.reason)"])
            } else {
                logger.notice("passkey assertion refused", metadata: ["reason": "\(error.reason)"])
            }
            throw refusedPasskeySignIn(of: user, origin: origin)
        }
        return try await signInWithPasskey(
            owner, credentialID: credentialID, assertion: assertion, challengeHash: challengeHash, origin: origin)
    }

    /// The user whose passkey `credentialID` is, current as `UserCache` keeps users (a disabled, deleted or revoked
    /// user, a removed passkey are seen at once): from the cache when this process knows the credential's owner,
    /// else read by the credential id. With the ticket that lets the sign-in put the user back after its write.
    private func passkeyOwner(_ credentialID: [UInt8], projectID: String) async throws
        -> (user: UserRecord, ticket: UserCache.Ticket?)?
    {
        let key = PasskeyOwner(projectID: projectID, credentialID: credentialID)
        if let uid = passkeyOwners[key],
            let owner = try await users.ticketed(projectID: projectID, uid: uid, store: store),
            owner.user.passkeys.contains(where: { $0.credentialID == credentialID })
        {
            return owner
        }
        guard
            let owner = try await users.read(
                store: store, { try await store.user(projectID: projectID, passkeyCredentialID: credentialID) })
        else { return nil }
        passkeyOwners.insert(owner.user.uid, for: key)
        return owner
    }

    /// A passkey assertion of a known credential that failed a check: counted, and recorded in its owner's history
    /// as a failed sign-in, as a wrong password is.
    private func refusedPasskeySignIn(of user: UserRecord, origin: RequestOrigin) -> AuthError {
        refusedSignIn(user.uid, provider: Self.passkeyProvider, .invalidAuthenticatorResponse, origin: origin)
    }

    /// The Auth Emulator's sign-in: no challenge, no assertion to verify.
    private func signInWithPasskey(_ user: UserRecord, origin: RequestOrigin) async throws -> AccountResult {
        let now = clock.now()
        let tokens = try await startSession(for: user, provider: Self.passkeyProvider, origin: origin)
        try await recordSignIn(projectID: user.projectID, uid: user.uid, at: now)
        var signedIn = user
        signedIn.lastLoginAt = now
        return AccountResult(user: signedIn, tokens: tokens, isNewUser: false)
    }

    /// A verified assertion's sign-in: the checks and `beforeSignIn` first, then one transaction that takes the
    /// challenge, stores the counter and starts the session. A sign-in refused after verification (a disabled
    /// account, `beforeSignIn`) still takes the challenge and stores the counter, since the authenticator has moved
    /// it.
    private func signInWithPasskey(
        _ owner: (user: UserRecord, ticket: UserCache.Ticket?), credentialID: [UInt8], assertion: VerifiedAssertion,
        challengeHash: [UInt8], origin: RequestOrigin
    ) async throws -> AccountResult {
        let user = owner.user
        var write = PasskeySignIn(
            challengeHash: challengeHash, projectID: origin.project.projectID, uid: user.uid,
            credentialID: credentialID, signCount: assertion.signCount, backupEligible: assertion.backupEligible,
            backedUp: assertion.backedUp, session: nil, at: clock.now())
        if user.disabled {
            guard try await recordPasskeySignIn(write) else { throw AuthError(.passkeyChallengeTimeout) }
            throw refusedSignIn(user.uid, provider: Self.passkeyProvider, .userDisabled, origin: origin)
        }
        // A verified passkey is possession and user verification at once: it is not asked for a second factor.
        let session: PendingSession
        do {
            session = try await prepareSession(for: user, provider: Self.passkeyProvider, origin: origin)
        } catch {
            guard try await recordPasskeySignIn(write) else { throw AuthError(.passkeyChallengeTimeout) }
            throw error
        }
        write.session = PasskeySignIn.Session(family: session.family, tokenHash: session.refreshTokenHash)
        write.at = session.family.createdAt
        guard try await recordPasskeySignIn(write, signedIn: owner) else {
            throw AuthError(.passkeyChallengeTimeout)
        }
        let tokens = try finishSession(session, origin: origin)
        var signedIn = session.user
        signedIn.lastLoginAt = write.at
        return AccountResult(user: signedIn, tokens: tokens, isNewUser: false)
    }

    /// The project's relying party, or PASSKEY_NOT_ENABLED while `passkeyConfig` has none.
    func relyingParty(_ origin: RequestOrigin) throws(AuthError) -> RelyingParty {
        let settings = origin.project.passkeys
        guard settings.isEnabled else { throw AuthError(.passkeyNotEnabled) }
        return RelyingParty(id: settings.rpID, origins: settings.expectedOrigins)
    }

    /// The time it is issued (8 bytes) and 32 random bytes, stored by its key for five minutes (`PasskeyChallenge`).
    private func issuePasskeyChallenge(
        _ purpose: PasskeyChallenge.Purpose, uid: String?, userHandle: [UInt8]?, origin: RequestOrigin
    ) async throws -> [UInt8] {
        let now = clock.now()
        let challenge = PasskeyChallenge.keyPrefix(issuedAt: now) + random.bytes(32)
        try await store.insertPasskeyChallenge(
            PasskeyChallenge(
                challengeHash: Self.passkeyChallengeHash(challenge), projectID: origin.project.projectID,
                purpose: purpose, uid: uid, userHandle: userHandle, createdAt: now,
                expiresAt: now.addingTimeInterval(PasskeyChallenge.lifetime)))
        return challenge
    }

    /// Takes the challenge the client data answers, once: unknown, used, expired or issued for another purpose or
    /// scope is PASSKEY_CHALLENGE_TIMEOUT (the client starts over).
    private func claimPasskeyChallenge(
        _ clientDataJSON: [UInt8], purpose: PasskeyChallenge.Purpose, origin: RequestOrigin
    ) async throws -> PasskeyChallenge {
        guard
            let claimed = try await store.consumePasskeyChallenge(
                hash: try Self.challengeHash(inClientData: clientDataJSON), projectID: origin.project.projectID,
                now: clock.now()),
            claimed.purpose == purpose
        else { throw AuthError(.passkeyChallengeTimeout) }
        return claimed
    }

    /// Looks at the challenge without taking it: unknown, used, expired or another purpose's is
    /// PASSKEY_CHALLENGE_TIMEOUT, before any verification.
    private func requireLiveChallenge(
        _ hash: [UInt8], purpose: PasskeyChallenge.Purpose, origin: RequestOrigin
    ) async throws {
        guard
            try await store.passkeyChallenge(hash: hash, projectID: origin.project.projectID, now: clock.now())?
                .purpose == purpose
        else { throw AuthError(.passkeyChallengeTimeout) }
    }

    /// Takes a sign-in's challenge for a refusal; PASSKEY_CHALLENGE_TIMEOUT when it was no live sign-in challenge
    /// (another request took it first, it expired, it was never issued, or it is an enrolment's).
    private func takeChallenge(_ hash: [UInt8], origin: RequestOrigin) async throws {
        guard
            try await store.consumePasskeyChallenge(hash: hash, projectID: origin.project.projectID, now: clock.now())?
                .purpose == .signIn
        else { throw AuthError(.passkeyChallengeTimeout) }
    }

    private func verifiedRegistration(
        _ response: PasskeyRegistrationResponse, of user: UserRecord, label: String, origin: RequestOrigin
    ) async throws -> PasskeyCredential {
        let rp = try relyingParty(origin)
        guard let clientData = response.clientDataJSON, let attestation = response.attestationObject else {
            throw AuthError(.invalidAuthenticatorResponse)
        }
        let claimed = try await claimPasskeyChallenge(clientData, purpose: .enrollment, origin: origin)
        guard claimed.uid == user.uid, let handle = claimed.userHandle else {
            throw AuthError(.passkeyChallengeTimeout)
        }
        let verified: VerifiedRegistration
        do {
            verified = try WebAuthn.verifyRegistration(
                clientDataJSON: clientData, attestationObject: attestation,
                expectedChallenge: try WebAuthn.challenge(inClientDataJSON: clientData), relyingParty: rp)
        } catch {
            logger.notice("passkey registration refused", metadata: ["reason": "\(error.reason)"])
            throw AuthError(.invalidAuthenticatorResponse)
        }
        // The id the client names, when it names one, must be the one the authenticator data carries.
        if let id = response.id.nonEmpty, Base64.decode(id) != verified.credentialID {
            throw AuthError(.invalidAuthenticatorResponse)
        }
        if try await store.user(projectID: origin.project.projectID, passkeyCredentialID: verified.credentialID) != nil
        {
            throw AuthError(.passkeyExists)
        }
        return PasskeyCredential(
            credentialID: verified.credentialID, userHandle: handle, publicKey: verified.publicKey,
            algorithm: verified.algorithm, signCount: verified.signCount, backupEligible: verified.backupEligible,
            backedUp: verified.backedUp, aaguid: verified.aaguid, name: label,
            attestationFormat: verified.attestationFormat, createdAt: clock.now())
    }

    /// The challenge's key in the store: its first 8 bytes (the time it was issued), then its SHA-256.
    static func passkeyChallengeHash(_ challenge: [UInt8]) -> [UInt8] {
        Array(challenge.prefix(8)) + SHA256.hash(data: challenge).withUnsafeBytes { Array($0) }
    }

    /// The stored hash of the challenge the client data carries; INVALID_AUTHENTICATOR_RESPONSE when it has none.
    private static func challengeHash(inClientData clientDataJSON: [UInt8]) throws(AuthError) -> [UInt8] {
        passkeyChallengeHash(try challenge(inClientData: clientDataJSON))
    }

    /// The challenge the client data carries; INVALID_AUTHENTICATOR_RESPONSE when it has none.
    private static func challenge(inClientData clientDataJSON: [UInt8]) throws(AuthError) -> [UInt8] {
        do { return try WebAuthn.challenge(inClientDataJSON: clientDataJSON) } catch {
            throw AuthError(.invalidAuthenticatorResponse)
        }
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

extension UserRecord {
    /// `deletePasskey` of `accounts:update` (users and admins): the credential ids are compared as bytes, in either
    /// base64 alphabet. Production refuses an id the user does not have (PASSKEY_ENROLLMENT_NOT_FOUND) and the
    /// removal of the last way to sign in; the Auth Emulator drops unknown ids silently.
    mutating func deletePasskeys(_ ids: [String], emulator: Bool) throws(AuthError) {
        guard !ids.isEmpty else { return }
        for id in ids {
            let bytes = emulator ? Array(id.utf8) : Base64.decode(id)
            guard let bytes, passkeys.contains(where: { $0.credentialID == bytes }) else {
                if emulator { continue }
                throw AuthError(.passkeyEnrollmentNotFound)
            }
            passkeys.removeAll { $0.credentialID == bytes }
        }
        if !emulator, passkeys.isEmpty, isAnonymous {
            throw AuthError(
                .lastSignInMethod, "The passkey is the account's only way to sign in; add another before removing it.")
        }
    }
}

/// A passkey credential of a project, as `AuthEngine.passkeyOwners` keys it.
struct PasskeyOwner: Hashable, Sendable {
    let projectID: String
    let credentialID: [UInt8]
}
