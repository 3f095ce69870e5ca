import Foundation
import HearthCore
import HearthEngine
import Hummingbird

/// Multi-factor authentication, Identity Toolkit v2: `accounts/mfaEnrollment:start|finalize|withdraw` and
/// `accounts/mfaSignIn:start|finalize`, with Firebase's field names.
extension AuthRoutes {
    func registerMultiFactor(on router: HearthRouter) {
        let methods: [(String, Handler)] = [
            ("mfaEnrollment:start", startMFAEnrollment), ("mfaEnrollment:finalize", finalizeMFAEnrollment),
            ("mfaEnrollment:withdraw", withdrawMFA), ("mfaSignIn:start", startMFASignIn),
            ("mfaSignIn:finalize", finalizeMFASignIn),
        ]
        for (name, handler) in methods {
            for prefix in ["", "/identitytoolkit.googleapis.com"] {
                router.post("\(prefix)/v2/accounts/\(name)") { request, context in
                    try await respond(request, context, hasProject: false, handler)
                }
            }
        }
    }

    /// `phoneEnrollmentInfo` / `phoneSignInInfo`: the number and the app-verification proof.
    func appProof(_ info: WireRequest?) throws -> SendVerificationCodeRequest {
        SendVerificationCodeRequest(
            phoneNumber: try info?.string("phoneNumber"), proof: try info.map { try AppProof(wire: $0) } ?? AppProof())
    }

    /// `phoneVerificationInfo` or `totpVerificationInfo`.
    func secondFactorProof(_ wire: WireRequest) throws(AuthError) -> SecondFactorProof? {
        if let phone = try wire.message("phoneVerificationInfo") {
            return .phone(sessionInfo: try phone.string("sessionInfo"), code: try phone.string("code"))
        }
        if let totp = try wire.message("totpVerificationInfo") {
            return .totp(sessionInfo: try totp.string("sessionInfo"), code: try totp.string("verificationCode"))
        }
        return nil
    }

    func startMFAEnrollment(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let phone = try wire.message("phoneEnrollmentInfo")
        let totp = try wire.message("totpEnrollmentInfo") != nil
        let started = try await engine.startSecondFactorEnrollment(
            SecondFactorEnrollmentStartRequest(
                idToken: try wire.string("idToken"), phone: phone == nil ? nil : try appProof(phone), totp: totp),
            origin: origin)
        switch started {
        case .phone(let session):
            return ["phoneSessionInfo": ["sessionInfo": .string(session)]]
        case .totp(let session, let secret, let finalizeBy):
            return [
                "totpSessionInfo": [
                    "sharedSecretKey": .string(secret),
                    "verificationCodeLength": .number(Double(TOTP.digits)),
                    "hashingAlgorithm": .string(TOTP.algorithm),
                    "periodSec": .number(Double(TOTP.periodSeconds)),
                    "sessionInfo": .string(session),
                    "finalizeEnrollmentTime": .string(UserEncoding.iso8601(finalizeBy)),
                ]
            ]
        }
    }

    func finalizeMFAEnrollment(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.finalizeSecondFactorEnrollment(
            SecondFactorEnrollmentFinalizeRequest(
                idToken: try wire.string("idToken"), displayName: try wire.string("displayName"),
                proof: try secondFactorProof(wire)),
            origin: origin)
        return tokensOnly(result.tokens)
    }

    func withdrawMFA(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.withdrawSecondFactor(
            idToken: try wire.string("idToken"), enrollmentID: try wire.string("mfaEnrollmentId"), origin: origin)
        return tokensOnly(result.tokens)
    }

    func startMFASignIn(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let session = try await engine.startSecondFactorSignIn(
            SecondFactorSignInStartRequest(
                pendingCredential: try wire.string("mfaPendingCredential"),
                enrollmentID: try wire.string("mfaEnrollmentId"),
                appProof: try appProof(wire.message("phoneSignInInfo"))),
            origin: origin)
        return ["phoneResponseInfo": ["sessionInfo": .string(session)]]
    }

    func finalizeMFASignIn(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.finalizeSecondFactorSignIn(
            SecondFactorSignInFinalizeRequest(
                pendingCredential: try wire.string("mfaPendingCredential"),
                enrollmentID: try wire.string("mfaEnrollmentId"), proof: try secondFactorProof(wire)),
            origin: origin)
        return tokensOnly(result.tokens)
    }

    /// v2 answers carry `idToken` and `refreshToken` only.
    func tokensOnly(_ tokens: SessionTokens?) -> JSONValue {
        guard let tokens else { return [:] }
        return ["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)]
    }
}
