import Crypto
import Foundation
import HearthCore
import HearthStore

/// What a first-factor sign-in of a user with second factors answers instead of tokens: an opaque, single-use
/// credential for `mfaSignIn:start`/`finalize`, and the factors to choose from.
public struct SecondFactorChallenge: Sendable {
    public var pendingCredential: String
    public var enrollments: [MFAEnrollment]
}

/// The end of a first factor: a session, or a challenge for a second factor.
public struct FirstFactorCompletion: Sendable {
    public var tokens: SessionTokens?
    public var challenge: SecondFactorChallenge?
}

/// `accounts/mfaSignIn:start`: send an SMS code to an enrolled phone factor.
public struct SecondFactorSignInStartRequest: Sendable {
    public var pendingCredential: String?
    public var enrollmentID: String?
    /// The app-verification proof (`phoneSignInInfo`); its `phoneNumber` is ignored.
    public var appProof: SendVerificationCodeRequest

    public init(pendingCredential: String?, enrollmentID: String?, appProof: SendVerificationCodeRequest) {
        self.pendingCredential = pendingCredential
        self.enrollmentID = enrollmentID
        self.appProof = appProof
    }
}

/// A second factor's proof: an SMS code for a phone session, or a TOTP code.
public enum SecondFactorProof: Sendable {
    case phone(sessionInfo: String?, code: String?)
    /// `sessionInfo` is the TOTP enrollment session (enrollment only).
    case totp(sessionInfo: String?, code: String?)
}

/// `accounts/mfaSignIn:finalize`.
public struct SecondFactorSignInFinalizeRequest: Sendable {
    public var pendingCredential: String?
    public var enrollmentID: String?
    public var proof: SecondFactorProof?

    public init(pendingCredential: String?, enrollmentID: String?, proof: SecondFactorProof?) {
        self.pendingCredential = pendingCredential
        self.enrollmentID = enrollmentID
        self.proof = proof
    }
}

extension AuthEngine {
    /// How long a first factor waits for its second (and a TOTP enrollment for its first code).
    public static let pendingSecondFactorLifetime: TimeInterval = 600
    /// Wrong TOTP codes allowed per pending credential.
    static let totpAttemptsPerCredential = 5
    /// Wrong TOTP codes allowed per user in `totpUserWindowSeconds`, whatever the pending credential: someone who
    /// knows the password can start as many sign-ins as they like, so the credential's own limit is not enough.
    static let totpAttemptsPerUser = 10
    static let totpUserWindowSeconds = 900
    /// First factors that cannot be combined with a second, as Firebase lists them.
    static let ineligibleFirstFactors: Set<String> = [
        ProviderID.anonymous, ProviderID.phone, ProviderID.custom, ProviderID.gameCenter,
    ]

    /// The one way a first factor ends: a session, or, for a user with second factors in a project with
    /// multi-factor on, a challenge. Every first-factor sign-in calls this, so none can skip the second factor.
    /// `extraClaims` reach the session only: custom tokens, their one source, are never challenged (as in Firebase).
    public func finishFirstFactor(
        for user: UserRecord, provider: String, origin: RequestOrigin, extraClaims: String? = nil,
        signInMethod: String? = nil
    ) async throws -> FirstFactorCompletion {
        guard needsSecondFactor(user, origin: origin) else {
            let tokens = try await startSession(
                for: user, provider: provider, origin: origin, extraClaims: extraClaims, signInMethod: signInMethod)
            return FirstFactorCompletion(tokens: tokens)
        }
        let credential = "hmp1_" + random.token(bytes: 48)
        let now = clock.now()
        try await store.insertPendingSecondFactor(
            PendingSecondFactor(
                credentialHash: Self.pendingHash(credential), projectID: user.projectID, uid: user.uid,
                purpose: .signIn, firstFactor: provider, createdAt: now,
                expiresAt: now.addingTimeInterval(Self.pendingSecondFactorLifetime)))
        logger.info("second factor required", metadata: ["uid": "\(user.uid)", "provider": "\(provider)"])
        return FirstFactorCompletion(
            challenge: SecondFactorChallenge(pendingCredential: credential, enrollments: user.mfaEnrollments))
    }

    /// Whether a first factor ends in a second-factor challenge rather than a session. Such a sign-in is not yet a
    /// sign-in: `lastLoginAt` waits for the second factor, as in Firebase.
    func needsSecondFactor(_ user: UserRecord, origin: RequestOrigin) -> Bool {
        origin.project.mfa.isOn && !user.mfaEnrollments.isEmpty
    }

    /// Sends the SMS code for an enrolled phone factor; returns the phone session (`phoneResponseInfo.sessionInfo`).
    public func startSecondFactorSignIn(_ request: SecondFactorSignInStartRequest, origin: RequestOrigin)
        async throws -> String
    {
        let mfa = origin.project.mfa
        guard mfa.allowsPhone else { throw AuthError(.operationNotAllowed, "SMS based MFA not enabled.") }
        guard let credential = request.pendingCredential.nonEmpty else {
            throw AuthError(.missingMFAPendingCredential, "Request does not have MFA pending credential.")
        }
        guard let enrollmentID = request.enrollmentID.nonEmpty else {
            throw AuthError(.missingMFAEnrollmentID, "No second factor identifier is provided.")
        }
        let (_, user) = try await livePendingSignIn(credential, origin: origin)
        guard let enrollment = user.mfaEnrollments.first(where: { $0.id == enrollmentID }) else {
            throw AuthError(.mfaEnrollmentNotFound)
        }
        guard let phone = enrollment.phoneNumber else {
            throw AuthError(.invalidArgument, "MFA provider not supported!")
        }
        var send = request.appProof
        send.phoneNumber = phone
        return try await sendVerificationCode(
            send, origin: origin, asFirstFactor: false, smsType: "MULTI_FACTOR_SIGN_IN")
    }

    /// Checks the second factor and starts the session the first factor began.
    public func finalizeSecondFactorSignIn(_ request: SecondFactorSignInFinalizeRequest, origin: RequestOrigin)
        async throws -> AccountResult
    {
        let project = origin.project
        try requireEnabled(request.proof, project: project)
        guard let credential = request.pendingCredential.nonEmpty else {
            throw AuthError(.missingCredential, "Please set MFA Pending Credential.")
        }
        guard let proof = request.proof else { throw AuthError(.invalidArgument, "MFA provider not supported!") }
        let (pending, user) = try await livePendingSignIn(credential, origin: origin)

        let enrollment: MFAEnrollment
        switch proof {
        case .phone(let session, let code):
            guard project.mfa.allowsPhone else { throw AuthError(.operationNotAllowed, "SMS based MFA not enabled.") }
            let number = try await verifyPhoneCode(session: session, code: code, origin: origin)
            // The phone session names the number; an enrollment id, when sent, must agree with it.
            let named = request.enrollmentID.nonEmpty
            guard
                let found = user.mfaEnrollments.first(where: {
                    $0.phoneNumber == number && (named == nil || $0.id == named)
                })
            else { throw AuthError(.mfaEnrollmentNotFound) }
            enrollment = found
        case .totp(_, let code):
            guard let adjacent = project.mfa.totpAdjacentIntervals, project.mfa.isOn else {
                throw AuthError(.operationNotAllowed, "TOTP based MFA not enabled.")
            }
            guard let enrollmentID = request.enrollmentID.nonEmpty else {
                throw AuthError(.missingMFAEnrollmentID, "No second factor identifier is provided.")
            }
            guard let found = user.mfaEnrollments.first(where: { $0.id == enrollmentID }),
                case .totp(let stored) = found.factor
            else { throw AuthError(.mfaEnrollmentNotFound) }
            try await verifyTOTP(
                code: code, storedSecret: stored, adjacentIntervals: adjacent, uid: user.uid, enrollmentID: found.id,
                attemptsKey: credential, origin: origin)
            enrollment = found
        }

        // Taken last, so a wrong code can be corrected; of two correct answers only one gets the session.
        guard
            try await store.consumePendingSecondFactor(
                hash: pending.credentialHash, projectID: project.projectID, now: clock.now()) != nil
        else { throw AuthError(.invalidMFAPendingCredential) }
        if user.disabled { throw AuthError(.userDisabled) }
        var signedIn = user
        signedIn.lastLoginAt = clock.now()
        try await recordSignIn(projectID: user.projectID, uid: user.uid, at: clock.now())
        let tokens = try await startSession(
            for: signedIn, provider: pending.firstFactor, origin: origin,
            secondFactor: SecondFactorClaim(factorID: enrollment.factorID, enrollmentID: enrollment.id))
        logger.info(
            "second factor passed", metadata: ["uid": "\(user.uid)", "factor": "\(enrollment.factorID)"])
        return AccountResult(user: signedIn, tokens: tokens, isNewUser: false)
    }

    /// A live sign-in challenge and its user, who must still exist and not have ended their sessions or changed
    /// their password since. `validSince` has whole seconds, so the password change is compared to the millisecond
    /// (as refresh families are ended): a first factor passed in the same second before the change is dead too.
    func livePendingSignIn(_ credential: String, origin: RequestOrigin) async throws
        -> (PendingSecondFactor, UserRecord)
    {
        let project = origin.project
        guard
            let pending = try await store.pendingSecondFactor(
                hash: Self.pendingHash(credential), projectID: project.projectID, now: clock.now()),
            pending.purpose == .signIn,
            let user = try await store.user(projectID: project.projectID, uid: pending.uid),
            pending.createdAt.secondsSince1970 >= user.validSince.secondsSince1970,
            pending.createdAt.millisecondsSince1970 >= user.passwordUpdatedAt?.millisecondsSince1970 ?? 0
        else { throw AuthError(.invalidMFAPendingCredential) }
        return (pending, user)
    }

    /// The number a phone session was for, once its code is right.
    func verifyPhoneCode(session: String?, code: String?, origin: RequestOrigin) async throws -> String {
        guard let code = code.nonEmpty else { throw AuthError(.missingCode) }
        guard let session = session.nonEmpty else { throw AuthError(.missingSessionInfo) }
        switch try await store.attemptPhoneCode(
            sessionHash: Self.sessionHash(session), codeHash: Self.codeHash(code, session: session),
            maxAttempts: origin.project.phone.maxCodeAttempts, now: clock.now())
        {
        case .verified(let number): return number
        case .wrongCode: throw AuthError(.invalidCode)
        case .expired: throw AuthError(.sessionExpired)
        case .unknown: throw AuthError(.invalidSessionInfo)
        }
    }

    /// Accepts a TOTP code once: within the project's window, and never the same time step twice for one
    /// enrollment (a code seen over a shoulder cannot be replayed). Wrong codes count against `attemptsKey`.
    func verifyTOTP(
        code: String?, storedSecret: String, adjacentIntervals: Int, uid: String, enrollmentID: String,
        attemptsKey: String, origin: RequestOrigin
    ) async throws {
        guard let code = code.nonEmpty else { throw AuthError(.missingCode) }
        let secret = try openTOTPSecret(storedSecret)
        let now = clock.now()
        let failures = "mfa:totp:fail:\(Base64URL.encode(Self.pendingHash(attemptsKey)))"
        let userFailures = "mfa:totp:fail:user:\(origin.project.projectID):\(uid)"
        let window = Int(Self.pendingSecondFactorLifetime)
        // Reserved before the check, as password attempts are, so parallel guesses cannot exceed the limits.
        let perCredential = try await reserveAttempts(
            [(failures, Self.totpAttemptsPerCredential)], windowSeconds: window)
        let perUser = try await reserveAttempts(
            [(userFailures, Self.totpAttemptsPerUser)], windowSeconds: Self.totpUserWindowSeconds)
        guard let step = TOTP.matchingStep(code: code, secret: secret, now: now, adjacentIntervals: adjacentIntervals)
        else { throw AuthError(.invalidCode) }
        try await release(perCredential)
        try await release(perUser)
        let used = "totp:\(origin.project.projectID):\(uid):\(enrollmentID):\(step)"
        // The step stays acceptable until the window has moved past it.
        let acceptableUntil = Date(
            timeIntervalSince1970: Double((step + Int64(adjacentIntervals) + 1) * Int64(TOTP.periodSeconds)))
        guard try await store.claimSingleUse(used, until: acceptableUntil, now: now) else {
            throw AuthError(.invalidCode, "This code was already used; wait for the next one.")
        }
    }

    static func pendingHash(_ credential: String) -> [UInt8] {
        SHA256.hash(data: Array(credential.utf8)).withUnsafeBytes { Array($0) }
    }
}

extension AuthEngine {
    /// The kind of second factor a finalize call names must be on for the project, before anything else is
    /// looked at (Firebase's order): TOTP for a TOTP proof, SMS for anything else.
    func requireEnabled(_ proof: SecondFactorProof?, project: ProjectConfig) throws(AuthError) {
        if case .totp? = proof {
            guard project.mfa.allowsTOTP else { throw AuthError(.operationNotAllowed, "TOTP based MFA not enabled.") }
        } else {
            guard project.mfa.allowsPhone else { throw AuthError(.operationNotAllowed, "SMS based MFA not enabled.") }
        }
    }
}
