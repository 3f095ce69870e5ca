import Crypto
import Foundation
import HearthCore
import HearthMessaging
import HearthStore

/// `accounts:sendVerificationCode`.
public struct SendVerificationCodeRequest: Sendable {
    public var phoneNumber: String?
    /// The app's proof: a reCAPTCHA token, or an APNs receipt and secret.
    public var proof: AppProof

    public init(phoneNumber: String?, proof: AppProof = AppProof()) {
        self.phoneNumber = phoneNumber
        self.proof = proof
    }
}

/// `accounts:signInWithPhoneNumber`: a code (or a temporary proof) for a phone number.
public struct PhoneSignInRequest: Sendable {
    public var sessionInfo: String?
    public var code: String?
    public var temporaryProof: String?
    public var phoneNumber: String?
    /// Links the number to this signed-in account.
    public var idToken: String?
    /// `REAUTH`: the number must already belong to an account.
    public var operation: String?

    public init(
        sessionInfo: String? = nil, code: String? = nil, temporaryProof: String? = nil, phoneNumber: String? = nil,
        idToken: String? = nil, operation: String? = nil
    ) {
        self.sessionInfo = sessionInfo
        self.code = code
        self.temporaryProof = temporaryProof
        self.phoneNumber = phoneNumber
        self.idToken = idToken
        self.operation = operation
    }
}

public enum PhoneSignInResult: Sendable {
    case signedIn(AccountResult, phoneNumber: String)
    /// The number is verified but belongs to another account: Firebase answers 200 with a proof the
    /// client can sign in with instead (the SDK's credentialAlreadyInUse with an updated credential).
    case numberBelongsToAnotherAccount(proof: String, expiresIn: Int, phoneNumber: String)
}

extension AuthEngine {
    static let proofLifetimeSeconds = 3600

    /// Sends a 6-digit code (or, for a configured test number, nothing) and returns the session. Second-factor
    /// codes (`asFirstFactor: false`) go to enrolled numbers, which the first-factor rule does not concern.
    public func sendVerificationCode(
        _ request: SendVerificationCodeRequest, origin: RequestOrigin, asFirstFactor: Bool = true,
        smsType: String = "SIGN_IN_OR_SIGN_UP"
    ) async throws -> String {
        let project = origin.project
        let settings = project.phone
        // Firebase answers a missing number with INVALID_PHONE_NUMBER too.
        let raw = request.phoneNumber ?? ""
        let lengthChecked = try PhoneNumber.normalize(raw, check: .length)
        let testCode = settings.testPhoneNumbers[lengthChecked]
        let phone = testCode == nil ? try PhoneNumber.normalize(raw, check: .pattern) : lengthChecked
        try await verifyApp(request.proof, isTestNumber: testCode != nil, origin: origin)

        if testCode == nil {
            guard settings.allowsSMS(to: PhoneNumber.region(of: phone)) else {
                throw AuthError(
                    .operationNotAllowed, "SMS unable to be sent until this region enabled by the app developer.")
            }
        }
        // The Firebase Auth Emulator has no quotas; tests send as many codes as they like.
        if testCode == nil && !isEmulator {
            let ip = origin.clientIP ?? "-"
            try await consumeLimit("sms:ip:m:\(ip)", limit: settings.codesPerIPPerMinute, windowSeconds: 60)
            try await consumeLimit("sms:ip:h:\(ip)", limit: settings.codesPerIPPerHour, windowSeconds: 3600)
            if settings.resendCooldownSeconds > 0,
                try await !store.claimInterval(
                    "sms:cool:\(project.projectID):\(phone)", seconds: settings.resendCooldownSeconds, now: clock.now())
            {
                throw AuthError(.tooManyAttemptsTryLater)
            }
            if settings.codesPerNumberPerDay > 0,
                try await store.incrementCounter(
                    "sms:day:\(project.projectID):\(phone)", windowSeconds: 86400, now: clock.now())
                    > settings.codesPerNumberPerDay
            {
                throw AuthError(.quotaExceeded, "Exceeded quota for verifying \(phone).")
            }
        }

        // After the limits: the refusal tells whose number it is, so probing it costs quota like a send.
        let holder = asFirstFactor ? try await store.user(projectID: project.projectID, phoneNumber: phone) : nil
        if let holder { try refusePhoneFirstFactor(for: holder, origin: origin) }
        if testCode == nil { try await runBeforeSend(sms: smsType, to: phone, user: holder, origin: origin) }
        let sessionInfo = "hps1_" + random.token(bytes: 48)
        let code = testCode ?? Self.sixDigits(random)
        let now = clock.now()
        let sessionHash = Self.sessionHash(sessionInfo)
        try await store.insertPhoneVerification(
            PhoneVerification(
                sessionHash: sessionHash, projectID: project.projectID, phoneNumber: phone,
                codeHash: Self.codeHash(code, session: sessionInfo), createdAt: now,
                expiresAt: now.addingTimeInterval(Double(settings.codeLifetimeSeconds))))
        if testCode == nil {
            let text = SMSTemplates.text(
                code: code, appName: settings.appName, locale: origin.locale, projectTemplate: settings.smsTemplate)
            do {
                try await smsSender.send(
                    OutboxMessage(
                        projectID: project.projectID, phoneNumber: phone, code: code, sessionInfo: sessionInfo,
                        text: text, sentAt: now))
                AuthMetrics.sms(outcome: "sent")
                recordMessageSent(ActivityAction.smsSent, kind: smsType, origin: origin)
            } catch is SMSNotConfigured {
                AuthMetrics.sms(outcome: "not_configured")
                try? await store.deletePhoneVerification(sessionHash: sessionHash)
                throw AuthError(
                    .operationNotAllowed, "This server has no SMS provider configured; only test phone numbers work.")
            } catch {
                try? await store.deletePhoneVerification(sessionHash: sessionHash)
                AuthMetrics.sms(outcome: "failed")
                logger.error("SMS delivery failed", metadata: ["phone": "\(phone)", "error": "\(error)"])
                throw AuthError(.unavailable, "The SMS could not be sent; try again later.")
            }
        }
        return sessionInfo
    }

    /// Verifies the code (or proof) and signs in, signs up, links or re-authenticates.
    public func signInWithPhoneNumber(_ request: PhoneSignInRequest, origin: RequestOrigin) async throws
        -> PhoneSignInResult
    {
        let project = origin.project
        let phone: String
        let viaProof = request.temporaryProof.nonEmpty != nil
        if let proof = request.temporaryProof.nonEmpty {
            guard let claimed = request.phoneNumber.nonEmpty else { throw AuthError(.missingPhoneNumber) }
            guard
                let proven = try await store.consumePhoneProof(
                    proofHash: Self.sessionHash(proof), projectID: project.projectID, now: clock.now()),
                proven == (try? PhoneNumber.normalize(claimed, check: .length))
            else { throw AuthError(.invalidTemporaryProof) }
            phone = proven
        } else {
            guard let session = request.sessionInfo.nonEmpty else { throw AuthError(.missingSessionInfo) }
            guard let code = request.code.nonEmpty else { throw AuthError(.missingCode) }
            switch try await store.attemptPhoneCode(
                sessionHash: Self.sessionHash(session), codeHash: Self.codeHash(code, session: session),
                maxAttempts: project.phone.maxCodeAttempts, now: clock.now())
            {
            case .verified(let number): phone = number
            case .wrongCode(let number, _):
                // A wrong code for an existing account's number goes into that account's History.
                guard let owner = try await store.user(projectID: project.projectID, phoneNumber: number) else {
                    throw AuthError(.invalidCode)
                }
                throw refusedSignIn(owner.uid, provider: ProviderID.phone, .invalidCode, origin: origin)
            case .expired: throw AuthError(.sessionExpired)
            case .unknown: throw AuthError(.invalidSessionInfo)
            }
        }

        let owner = try await store.user(projectID: project.projectID, phoneNumber: phone)
        if let idToken = request.idToken.nonEmpty {
            let (current, _) = try await authenticatedUser(idToken: idToken, origin: origin)
            if let owner, owner.uid != current.uid {
                if viaProof { throw AuthError(.phoneNumberExists) }
                let proof = "hpp1_" + random.token(bytes: 48)
                try await store.insertPhoneProof(
                    PhoneProof(
                        proofHash: Self.sessionHash(proof), projectID: project.projectID, phoneNumber: phone,
                        expiresAt: clock.now().addingTimeInterval(Double(Self.proofLifetimeSeconds))))
                return .numberBelongsToAnotherAccount(
                    proof: proof, expiresIn: Self.proofLifetimeSeconds, phoneNumber: phone)
            }
            let linked = try await retryingOnConflict {
                try await link(phone: phone, toUserWithID: current.uid, origin: origin)
            }
            return .signedIn(linked, phoneNumber: phone)
        }
        if request.operation == "REAUTH", owner == nil { throw AuthError(.userNotFound) }
        guard let owner else {
            try await consumeLimit(
                "signup:ip:\(origin.clientIP ?? "-")", limit: project.rateLimits.signUpsPerIPPerHour,
                windowSeconds: 3600)
            let now = clock.now()
            var user = UserRecord(
                projectID: project.projectID, uid: random.uid(), phoneNumber: phone, validSince: nowSecond(),
                createdAt: now, lastLoginAt: now)
            try await runBeforeCreate(&user, provider: ProviderID.phone, origin: origin)
            do { try await store.insertUser(user) } catch { throw mapStoreError(error) }
            noteSignUp(user, provider: ProviderID.phone, origin: origin)
            logger.info(
                "account created",
                metadata: ["project": "\(project.projectID)", "uid": "\(user.uid)", "provider": "phone"])
            let tokens = try await startSession(for: user, provider: ProviderID.phone, origin: origin)
            return .signedIn(AccountResult(user: user, tokens: tokens, isNewUser: true), phoneNumber: phone)
        }
        if owner.disabled { throw refusedSignIn(owner.uid, provider: ProviderID.phone, .userDisabled, origin: origin) }
        try refusePhoneFirstFactor(for: owner, origin: origin)
        try await recordSignIn(projectID: owner.projectID, uid: owner.uid, at: clock.now())
        let tokens = try await startSession(for: owner, provider: ProviderID.phone, origin: origin)
        return .signedIn(AccountResult(user: owner, tokens: tokens, isNewUser: false), phoneNumber: phone)
    }

    private func link(phone: String, toUserWithID uid: String, origin: RequestOrigin) async throws -> AccountResult {
        guard var user = try await store.user(projectID: origin.project.projectID, uid: uid) else {
            throw AuthError(.userNotFound)
        }
        try refusePhoneFirstFactor(for: user, origin: origin)
        user.phoneNumber = phone
        user.lastLoginAt = clock.now()
        try await save(&user)
        let tokens = try await startSession(for: user, provider: ProviderID.phone, origin: origin)
        return AccountResult(user: user, tokens: tokens, isNewUser: false)
    }

    /// Firebase's rule: a phone number cannot be the first factor (signed in with, linked, sent a code) of a user
    /// with SMS second factors, nor of one who must pass any second factor.
    func refusePhoneFirstFactor(for user: UserRecord, origin: RequestOrigin) throws(AuthError) {
        if needsSecondFactor(user, origin: origin) || user.mfaEnrollments.contains(where: { $0.phoneNumber != nil }) {
            throw AuthError(
                .unsupportedFirstFactor, "A phone number cannot be set as a first factor on an SMS based MFA user.")
        }
    }

    /// Six decimal digits, uniformly from the CSPRNG.
    static func sixDigits(_ random: SecureRandom) -> String {
        while true {
            let bytes = random.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // Reject the top sliver so every code is equally likely.
            if value < UInt32.max - UInt32.max % 1_000_000 {
                let n = value % 1_000_000
                return String(repeating: "0", count: 6 - String(n).count) + String(n)
            }
        }
    }

    static func sessionHash(_ session: String) -> [UInt8] {
        SHA256.hash(data: Array(session.utf8)).withUnsafeBytes { Array($0) }
    }

    /// Keyed by the session, which only the client holds: the stored value cannot be brute-forced
    /// back to the six digits without it.
    static func codeHash(_ code: String, session: String) -> [UInt8] {
        let mac = HMAC<SHA256>.authenticationCode(for: Array(code.utf8), using: SymmetricKey(data: Array(session.utf8)))
        return mac.withUnsafeBytes { Array($0) }
    }
}

extension AuthEngine {
    /// Firebase's emulator has no phone sign-in for tenants (UNSUPPORTED_TENANT_OPERATION; its second factors by SMS
    /// work); Hearth's emulator mode answers the same, production serves it. For the phone sign-in routes.
    public func refuseEmulatorTenant(_ origin: RequestOrigin) throws(AuthError) {
        if origin.emulator, origin.project.tenantID != nil { throw AuthError(.unsupportedTenantOperation) }
    }
}
