import HearthCore
import HearthEngine

/// Phone sign-in: `accounts:verifyClient`, `v2/recaptchaConfig`, `accounts:sendVerificationCode` and
/// `accounts:signInWithPhoneNumber`.
extension AuthRoutes {
    func sendVerificationCode(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        try engine.refuseEmulatorTenant(origin)
        let session = try await engine.sendVerificationCode(
            SendVerificationCodeRequest(
                phoneNumber: try wire.string("phoneNumber"),
                proof: try AppProof(wire: wire)),
            origin: origin)
        return ["sessionInfo": .string(session)]
    }

    /// `accounts:verifyClient`: the receipt for an APNs token; the secret goes to the device by push.
    func verifyClient(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.verifyClient(
            VerifyClientRequest(appToken: try wire.string("appToken"), isSandbox: try wire.bool("isSandbox") ?? false),
            origin: origin)
        return [
            "receipt": .string(result.receipt), "suggestedTimeout": .string(String(result.suggestedTimeoutSeconds)),
        ]
    }

    /// `v2/recaptchaConfig`: the reCAPTCHA site key and enforcement, which FirebaseAuth reads before a
    /// phone or password request.
    func recaptchaConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let config = engine.recaptchaConfig(origin: origin)
        var answer: [String: JSONValue] = [
            "recaptchaEnforcementState": .array(
                config.enforcement.sorted { $0.key < $1.key }.map {
                    ["provider": .string($0.key), "enforcementState": .string($0.value)]
                })
        ]
        if let key = config.recaptchaKey { answer["recaptchaKey"] = .string(key) }
        return .object(answer)
    }

    /// `v1/recaptchaParams` (v3 `getRecaptchaParam`): the reCAPTCHA v2 site key clients render the challenge
    /// with. Firebase always answers one, and the JS SDK's `RecaptchaVerifier` refuses to start without it, even
    /// with app verification disabled for testing; so without a configured key (and always in emulator mode, as
    /// the Firebase emulator does) the answer is a placeholder that no client sends on to Google.
    func recaptchaParams(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let placeholder: JSONValue = "Fake-key__Do-not-send-this-to-Recaptcha_"
        var answer: [String: JSONValue] = ["kind": "identitytoolkit#GetRecaptchaParamResponse"]
        if origin.emulator {
            answer["recaptchaSiteKey"] = placeholder
            answer["recaptchaStoken"] = "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service"
        } else {
            answer["recaptchaSiteKey"] = engine.recaptchaConfig(origin: origin).siteKey.map(JSONValue.string) ?? placeholder
        }
        return .object(answer)
    }

    func signInWithPhoneNumber(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        try engine.refuseEmulatorTenant(origin)
        let result = try await engine.signInWithPhoneNumber(
            PhoneSignInRequest(
                sessionInfo: try wire.string("sessionInfo"), code: try wire.string("code"),
                temporaryProof: try wire.string("temporaryProof"), phoneNumber: try wire.string("phoneNumber"),
                idToken: try wire.string("idToken"), operation: try wire.string("operation")),
            origin: origin)
        switch result {
        case .signedIn(let account, let phone):
            return UserEncoding.withTokens(
                [
                    "localId": .string(account.user.uid), "isNewUser": .bool(account.isNewUser),
                    "phoneNumber": .string(phone),
                ], account.tokens)
        case .numberBelongsToAnotherAccount(let proof, let expiresIn, let phone):
            return [
                "temporaryProof": .string(proof), "temporaryProofExpiresIn": .string(String(expiresIn)),
                "phoneNumber": .string(phone),
            ]
        }
    }
}

extension AppProof {
    /// The app-verification fields of `sendVerificationCode`, `phoneEnrollmentInfo` and `phoneSignInInfo`.
    init(wire: WireRequest) throws {
        self.init(
            recaptchaToken: try wire.string("recaptchaToken") ?? wire.string("captchaResponse"),
            iosReceipt: try wire.string("iosReceipt"), iosSecret: try wire.string("iosSecret"),
            hasAndroidProof: try ["playIntegrityToken", "safetyNetToken"].contains { try wire.string($0) != nil })
    }
}
