import Foundation
import HearthCore
import HearthStore
import HearthTokens

/// `accounts/mfaEnrollment:start`: an SMS code for a phone factor (`phoneEnrollmentInfo`), or a new TOTP secret
/// (`totpEnrollmentInfo`).
public struct SecondFactorEnrollmentStartRequest: Sendable {
    public var idToken: String?
    public var phone: SendVerificationCodeRequest?
    public var totp: Bool

    public init(idToken: String?, phone: SendVerificationCodeRequest? = nil, totp: Bool = false) {
        self.idToken = idToken
        self.phone = phone
        self.totp = totp
    }
}

public enum SecondFactorEnrollmentStart: Sendable {
    /// `phoneSessionInfo.sessionInfo`.
    case phone(sessionInfo: String)
    /// `totpSessionInfo`: the secret the authenticator app gets, and the session finalize names.
    case totp(sessionInfo: String, sharedSecretKey: String, finalizeBy: Date)
}

/// `accounts/mfaEnrollment:finalize`.
public struct SecondFactorEnrollmentFinalizeRequest: Sendable {
    public var idToken: String?
    public var displayName: String?
    public var proof: SecondFactorProof?

    public init(idToken: String?, displayName: String?, proof: SecondFactorProof?) {
        self.idToken = idToken
        self.displayName = displayName
        self.proof = proof
    }
}

extension AuthEngine {
    /// Starts enrolling a second factor for the signed-in user.
    public func startSecondFactorEnrollment(_ request: SecondFactorEnrollmentStartRequest, origin: RequestOrigin)
        async throws -> SecondFactorEnrollmentStart
    {
        let mfa = origin.project.mfa
        if request.totp {
            guard mfa.allowsTOTP else { throw AuthError(.operationNotAllowed, "TOTP based MFA not enabled.") }
        } else {
            guard mfa.allowsPhone else { throw AuthError(.operationNotAllowed, "SMS based MFA not enabled.") }
        }
        let (user, token) = try await enrollingUser(idToken: request.idToken, origin: origin)
        guard user.mfaEnrollments.count < MFAEnrollment.maximumPerUser else {
            throw AuthError(.secondFactorLimitExceeded)
        }
        if request.totp {
            let secret = random.bytes(TOTP.secretLength)
            let session = "hmt1_" + random.token(bytes: 48)
            let now = clock.now()
            let finalizeBy = now.addingTimeInterval(Self.pendingSecondFactorLifetime)
            try await store.insertPendingSecondFactor(
                PendingSecondFactor(
                    credentialHash: Self.pendingHash(session), projectID: user.projectID, uid: user.uid,
                    purpose: .totpEnrollment, firstFactor: token.signInProvider ?? ProviderID.password,
                    totpSecret: try sealTOTPSecret(secret), createdAt: now, expiresAt: finalizeBy))
            return .totp(sessionInfo: session, sharedSecretKey: Base32.encode(secret), finalizeBy: finalizeBy)
        }
        guard let phone = request.phone else {
            throw AuthError(.invalidArgument, "Missing phoneEnrollmentInfo.")
        }
        // Firebase answers a missing number with INVALID_PHONE_NUMBER too.
        let number = try PhoneNumber.normalize(phone.phoneNumber ?? "", check: .length)
        if user.mfaEnrollments.contains(where: { $0.phoneNumber == number }) {
            throw AuthError(.secondFactorExists, "Phone number already enrolled as second factor for this account.")
        }
        let session = try await sendVerificationCode(
            phone, origin: origin, asFirstFactor: false, smsType: "MULTI_FACTOR_ENROLLMENT")
        return .phone(sessionInfo: session)
    }

    /// Enrolls the factor the proof stands for, and starts a session that has passed it.
    public func finalizeSecondFactorEnrollment(_ request: SecondFactorEnrollmentFinalizeRequest, origin: RequestOrigin)
        async throws -> AccountResult
    {
        let project = origin.project
        try requireEnabled(request.proof, project: project)
        guard let proof = request.proof else { throw AuthError(.invalidArgument, "MFA provider not supported!") }
        let (user, token) = try await enrollingUser(idToken: request.idToken, origin: origin)
        let enrollmentID = random.uid()
        let factor: MFAEnrollment.Factor
        switch proof {
        case .phone(let session, let code):
            factor = .phone(try await verifyPhoneCode(session: session, code: code, origin: origin))
        case .totp(let session, let code):
            guard let session = session.nonEmpty else { throw AuthError(.missingSessionInfo) }
            let hash = Self.pendingHash(session)
            guard
                let pending = try await store.pendingSecondFactor(
                    hash: hash, projectID: project.projectID, now: clock.now()),
                pending.purpose == .totpEnrollment, pending.uid == user.uid, let secret = pending.totpSecret
            else { throw AuthError(.invalidSessionInfo) }
            try await verifyTOTP(
                code: code, storedSecret: secret, adjacentIntervals: project.mfa.totpAdjacentIntervals ?? 0,
                uid: user.uid, enrollmentID: enrollmentID, attemptsKey: session, origin: origin)
            guard
                try await store.consumePendingSecondFactor(hash: hash, projectID: project.projectID, now: clock.now())
                    != nil
            else { throw AuthError(.invalidSessionInfo) }
            factor = .totp(storedSecret: secret)
        }
        let enrollment = MFAEnrollment(
            id: enrollmentID, displayName: request.displayName.nonEmpty, enrolledAt: clock.now(), factor: factor)
        let updated = try await retryingOnConflict {
            guard var current = try await store.user(projectID: project.projectID, uid: user.uid) else {
                throw AuthError(.userNotFound)
            }
            if let number = enrollment.phoneNumber, current.mfaEnrollments.contains(where: { $0.phoneNumber == number })
            {
                throw AuthError(
                    .secondFactorExists, "Phone number already enrolled as second factor for this account.")
            }
            guard current.mfaEnrollments.count < MFAEnrollment.maximumPerUser else {
                throw AuthError(.secondFactorLimitExceeded)
            }
            current.mfaEnrollments.append(enrollment)
            try await save(&current)
            return current
        }
        logger.info("second factor enrolled", metadata: ["uid": "\(user.uid)", "factor": "\(enrollment.factorID)"])
        await sendSecondFactorNotice(user: updated, enrollment: enrollment, origin: origin)
        let tokens = try await startSession(
            for: updated, provider: token.signInProvider ?? ProviderID.password, origin: origin,
            secondFactor: SecondFactorClaim(factorID: enrollment.factorID, enrollmentID: enrollment.id), signIn: false)
        return AccountResult(user: updated, tokens: tokens, isNewUser: false)
    }

    /// Removes a second factor. Like Firebase, other sessions stay signed in; the caller gets fresh tokens.
    public func withdrawSecondFactor(idToken: String?, enrollmentID: String?, origin: RequestOrigin) async throws
        -> AccountResult
    {
        let (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        guard let enrollmentID = enrollmentID.nonEmpty else {
            throw AuthError(.missingMFAEnrollmentID, "No second factor identifier is provided.")
        }
        guard user.mfaEnrollments.contains(where: { $0.id == enrollmentID }) else {
            throw AuthError(.mfaEnrollmentNotFound)
        }
        try authorizeSignInMethodChange(of: user, token: token, origin: origin)
        let updated = try await retryingOnConflict {
            guard var current = try await store.user(projectID: origin.project.projectID, uid: user.uid) else {
                throw AuthError(.userNotFound)
            }
            guard current.mfaEnrollments.contains(where: { $0.id == enrollmentID }) else {
                throw AuthError(.mfaEnrollmentNotFound)
            }
            current.mfaEnrollments.removeAll { $0.id == enrollmentID }
            try await save(&current)
            return current
        }
        logger.info("second factor withdrawn", metadata: ["uid": "\(user.uid)"])
        let tokens = try await startSession(
            for: updated, provider: token.signInProvider ?? ProviderID.password, origin: origin, signIn: false)
        return AccountResult(user: updated, tokens: tokens, isNewUser: false)
    }

    /// The signed-in user who may enroll: a first factor that can carry a second, a verified e-mail, a recent
    /// sign-in.
    private func enrollingUser(idToken: String?, origin: RequestOrigin) async throws -> (UserRecord, VerifiedIDToken) {
        let (user, token) = try await authenticatedUser(idToken: idToken, origin: origin)
        if Self.ineligibleFirstFactors.contains(token.signInProvider ?? ProviderID.anonymous) {
            throw AuthError(.unsupportedFirstFactor, "MFA is not available for the given first factor.")
        }
        guard user.email != nil, user.emailVerified else {
            throw AuthError(.unverifiedEmail, "Need to verify email first before enrolling second factors.")
        }
        try authorizeSignInMethodChange(of: user, token: token, origin: origin)
        return (user, token)
    }

    // MARK: TOTP secrets at rest

    /// Sealed with the key-encryption key when one is configured, as signing keys are.
    func sealTOTPSecret(_ secret: [UInt8]) throws -> String {
        guard let kek = idTokens.keyRing.kek else { return MFAEnrollment.plainPrefix + Base32.encode(secret) }
        return MFAEnrollment.sealedPrefix + Base64.encode(try kek.seal(secret))
    }

    func openTOTPSecret(_ stored: String) throws -> [UInt8] {
        if stored.hasPrefix(MFAEnrollment.sealedPrefix) {
            guard let kek = idTokens.keyRing.kek, let sealed = Base64.decode(String(stored.dropFirst(4))) else {
                logger.error("a TOTP secret is sealed but no key-encryption key can open it")
                throw AuthError(.internalError)
            }
            return try kek.open(sealed)
        }
        guard stored.hasPrefix(MFAEnrollment.plainPrefix), let secret = Base32.decode(String(stored.dropFirst(4)))
        else { throw AuthError(.internalError) }
        return secret
    }
}
