import Foundation
import Testing

@testable import HearthAuth

@Suite("Error mapping")
struct ErrorMappingTests {
    /// Every code in Hearth's server catalogue (HearthCore's AuthErrorCode and the federated sign-in
    /// codes), so a new server code without a client mapping fails here.
    static let serverCodes = [
        "INVALID_JSON_PAYLOAD", "MISSING_API_KEY", "API_KEY_INVALID", "NOT_FOUND", "PAYLOAD_TOO_LARGE",
        "METHOD_NOT_ALLOWED", "INVALID_PROJECT_ID", "PERMISSION_DENIED", "INSUFFICIENT_PERMISSION", "UNAUTHENTICATED",
        "EMAIL_EXISTS", "EMAIL_NOT_FOUND", "INVALID_EMAIL", "MISSING_EMAIL", "MISSING_PASSWORD", "INVALID_PASSWORD",
        "WEAK_PASSWORD", "PASSWORD_DOES_NOT_MEET_REQUIREMENTS", "INVALID_LOGIN_CREDENTIALS", "USER_DISABLED",
        "USER_NOT_FOUND", "MISSING_LOCAL_ID", "MISSING_IDENTIFIER", "INVALID_IDENTIFIER", "MISSING_CONTINUE_URI",
        "INVALID_CONTINUE_URI", "INVALID_DISPLAY_NAME", "INVALID_PHOTO_URL", "INVALID_PHONE_NUMBER",
        "PHONE_NUMBER_EXISTS", "MISSING_PHONE_NUMBER", "MISSING_SESSION_INFO", "INVALID_SESSION_INFO", "MISSING_CODE",
        "INVALID_CODE", "SESSION_EXPIRED", "INVALID_TEMPORARY_PROOF", "MISSING_APP_CREDENTIAL",
        "INVALID_APP_CREDENTIAL", "PROVIDER_ALREADY_LINKED", "DUPLICATE_LOCAL_ID", "LOCAL_ID_EXISTS",
        "INVALID_LOCAL_ID", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "OPERATION_NOT_ALLOWED", "ADMIN_ONLY_OPERATION",
        "TOO_MANY_ATTEMPTS_TRY_LATER", "QUOTA_EXCEEDED", "INVALID_REQ_TYPE", "INVALID_CLAIMS", "FORBIDDEN_CLAIM",
        "CLAIMS_TOO_LARGE", "INVALID_TENANT_ID", "TENANT_ID_MISMATCH", "INVALID_IDP_RESPONSE",
        "MISSING_OR_INVALID_NONCE", "FEDERATED_USER_ID_ALREADY_LINKED", "INVALID_CREDENTIAL_OR_PROVIDER_ID",
        "INVALID_PROVIDER_ID", "MISSING_REQUEST_URI", "INVALID_REQUEST_URI", "INVALID_PENDING_TOKEN",
        "INVALID_ID_TOKEN", "MISSING_ID_TOKEN", "TOKEN_EXPIRED", "USER_MISMATCH", "MISSING_REFRESH_TOKEN",
        "INVALID_REFRESH_TOKEN", "MISSING_GRANT_TYPE", "INVALID_GRANT_TYPE", "INVALID_ARGUMENT", "INTERNAL_ERROR",
        "UNAVAILABLE", "INVALID_CUSTOM_TOKEN", "CREDENTIAL_MISMATCH",
    ]

    @Test(arguments: serverCodes) func everyServerCodeHasAMapping(code: String) {
        #expect(ServerErrorMapping.codes[code] != nil, "\(code) has no client mapping")
    }

    @Test func theCodesUsersBranchOnMapAsFirebaseMapsThem() {
        let expected: [String: AuthErrorCode] = [
            "EMAIL_EXISTS": .emailAlreadyInUse, "INVALID_LOGIN_CREDENTIALS": .invalidCredential,
            "EMAIL_NOT_FOUND": .userNotFound, "INVALID_PASSWORD": .wrongPassword, "WEAK_PASSWORD": .weakPassword,
            "USER_DISABLED": .userDisabled, "TOKEN_EXPIRED": .userTokenExpired, "INVALID_ID_TOKEN": .invalidUserToken,
            "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin, "MISSING_OR_INVALID_NONCE": .missingOrInvalidNonce,
            "FEDERATED_USER_ID_ALREADY_LINKED": .credentialAlreadyInUse, "INVALID_CODE": .invalidVerificationCode,
            "SESSION_EXPIRED": .sessionExpired, "INVALID_SESSION_INFO": .invalidVerificationID,
            "INVALID_CUSTOM_TOKEN": .invalidCustomToken, "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests,
            "API_KEY_INVALID": .invalidAPIKey, "INVALID_IDP_RESPONSE": .invalidCredential,
        ]
        for (server, client) in expected {
            #expect(ServerErrorMapping.error(serverMessage: "\(server) : detail").code == client.rawValue, "\(server)")
        }
    }

    @Test func errorsCarryFirebasesDomainNameAndTheServersDetail() {
        let error = ServerErrorMapping.error(
            serverMessage: "WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(error.domain == AuthErrorDomain)
        #expect(AuthErrorDomain == "FIRAuthErrorDomain")
        #expect(error.code == 17026)
        #expect(error.localizedDescription == "Password should be at least 6 characters")
        #expect(error.userInfo[AuthErrorUserInfoNameKey] as? String == "ERROR_WEAK_PASSWORD")
        #expect(error.userInfo[AuthErrorUserInfoServerCodeKey] as? String == "WEAK_PASSWORD")

        let unknown = ServerErrorMapping.error(serverMessage: "SOMETHING_NEW")
        #expect(unknown.code == AuthErrorCode.internalError.rawValue)
        #expect(unknown.localizedDescription == "SOMETHING_NEW")
    }

    @Test func rawValuesAndNamesAreFirebases() {
        #expect(AuthErrorCode.invalidCustomToken.rawValue == 17000)
        #expect(AuthErrorCode.credentialAlreadyInUse.rawValue == 17025)
        #expect(AuthErrorCode.secondFactorRequired.rawValue == 17078)
        #expect(AuthErrorCode.missingOrInvalidNonce.rawValue == 17094)
        #expect(AuthErrorCode.internalError.rawValue == 17999)
        #expect(AuthErrorCode.invalidAPIKey.errorName == "ERROR_INVALID_API_KEY")
        #expect(AuthErrorCode.missingIosBundleID.errorName == "ERROR_MISSING_IOS_BUNDLE_ID")
        #expect(AuthErrorCode.requiresRecentLogin.errorName == "ERROR_REQUIRES_RECENT_LOGIN")
        #expect(AuthErrorUserInfoUpdatedCredentialKey == "FIRAuthErrorUserInfoUpdatedCredentialKey")
    }
}
