import HearthCore
import HearthEngine

/// Phone sign-in: `accounts:sendVerificationCode` and `accounts:signInWithPhoneNumber`.
extension AuthRoutes {
    func sendVerificationCode(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let session = try await engine.sendVerificationCode(
            SendVerificationCodeRequest(
                phoneNumber: try wire.string("phoneNumber"),
                recaptchaToken: try wire.string("recaptchaToken") ?? wire.string("captchaResponse"),
                hasOtherAppProof: try ["iosReceipt", "playIntegrityToken", "safetyNetToken"].contains {
                    try wire.string($0) != nil
                }),
            origin: origin)
        return ["sessionInfo": .string(session)]
    }

    func signInWithPhoneNumber(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
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
