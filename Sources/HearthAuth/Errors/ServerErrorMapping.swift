import Foundation

/// The server's error codes (the part of `error.message` before the colon) and the client codes
/// FirebaseAuth reports for them. Codes Firebase's SDK does not know map to the closest client code.
enum ServerErrorMapping {
    static let codes: [String: AuthErrorCode] = [
        // Accounts and passwords
        "EMAIL_EXISTS": .emailAlreadyInUse,
        "EMAIL_NOT_FOUND": .userNotFound,
        "USER_NOT_FOUND": .userNotFound,
        "INVALID_EMAIL": .invalidEmail,
        "MISSING_EMAIL": .missingEmail,
        "INVALID_IDENTIFIER": .invalidEmail,
        "MISSING_IDENTIFIER": .missingEmail,
        "INVALID_PASSWORD": .wrongPassword,
        "MISSING_PASSWORD": .wrongPassword,
        "INVALID_LOGIN_CREDENTIALS": .invalidCredential,
        "WEAK_PASSWORD": .weakPassword,
        "PASSWORD_DOES_NOT_MEET_REQUIREMENTS": .passwordDoesNotMeetRequirements,
        "USER_DISABLED": .userDisabled,
        "OPERATION_NOT_ALLOWED": .operationNotAllowed,
        "PASSWORD_LOGIN_DISABLED": .operationNotAllowed,
        "ADMIN_ONLY_OPERATION": .adminRestrictedOperation,
        "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests,
        "RESET_PASSWORD_EXCEED_LIMIT": .tooManyRequests,
        "QUOTA_EXCEEDED": .quotaExceeded,
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin,
        "EMAIL_CHANGE_NEEDS_VERIFICATION": .emailChangeNeedsVerification,
        "UNVERIFIED_EMAIL": .unverifiedEmail,
        "PROVIDER_ALREADY_LINKED": .providerAlreadyLinked,
        "NO_SUCH_PROVIDER": .noSuchProvider,
        "USER_MISMATCH": .userMismatch,
        "INVALID_DISPLAY_NAME": .internalError,
        // Admin-only requests a client never makes
        "MISSING_LOCAL_ID": .internalError,
        "INVALID_LOCAL_ID": .internalError,
        "DUPLICATE_LOCAL_ID": .internalError,
        "LOCAL_ID_EXISTS": .internalError,
        "INVALID_CLAIMS": .internalError,
        "FORBIDDEN_CLAIM": .internalError,
        "CLAIMS_TOO_LARGE": .internalError,
        "INVALID_PHOTO_URL": .internalError,
        // Tokens
        "INVALID_ID_TOKEN": .invalidUserToken,
        "MISSING_ID_TOKEN": .invalidUserToken,
        "TOKEN_EXPIRED": .userTokenExpired,
        "INVALID_REFRESH_TOKEN": .invalidUserToken,
        "MISSING_REFRESH_TOKEN": .invalidUserToken,
        "INVALID_GRANT_TYPE": .internalError,
        "MISSING_GRANT_TYPE": .internalError,
        "INVALID_CUSTOM_TOKEN": .invalidCustomToken,
        "CREDENTIAL_MISMATCH": .customTokenMismatch,
        // Federated identity providers
        "INVALID_IDP_RESPONSE": .invalidCredential,
        "INVALID_PENDING_TOKEN": .invalidCredential,
        "INVALID_CREDENTIAL": .invalidCredential,
        "MISSING_OR_INVALID_NONCE": .missingOrInvalidNonce,
        "FEDERATED_USER_ID_ALREADY_LINKED": .credentialAlreadyInUse,
        "INVALID_PROVIDER_ID": .invalidProviderID,
        "INVALID_CREDENTIAL_OR_PROVIDER_ID": .invalidCredential,
        "MISSING_REQUEST_URI": .internalError,
        "INVALID_REQUEST_URI": .internalError,
        "MISSING_CLIENT_IDENTIFIER": .missingClientIdentifier,
        // Phone
        "INVALID_PHONE_NUMBER": .invalidPhoneNumber,
        "MISSING_PHONE_NUMBER": .missingPhoneNumber,
        "PHONE_NUMBER_EXISTS": .credentialAlreadyInUse,
        "INVALID_CODE": .invalidVerificationCode,
        "MISSING_CODE": .missingVerificationCode,
        "INVALID_SESSION_INFO": .invalidVerificationID,
        "MISSING_SESSION_INFO": .missingVerificationID,
        "SESSION_EXPIRED": .sessionExpired,
        "INVALID_TEMPORARY_PROOF": .invalidCredential,
        "MISSING_APP_CREDENTIAL": .missingAppCredential,
        "INVALID_APP_CREDENTIAL": .invalidAppCredential,
        "MISSING_IOS_APP_TOKEN": .missingAppToken,
        "APP_NOT_VERIFIED": .appNotVerified,
        "CAPTCHA_CHECK_FAILED": .captchaCheckFailed,
        "MISSING_RECAPTCHA_TOKEN": .missingRecaptchaToken,
        "INVALID_RECAPTCHA_TOKEN": .invalidRecaptchaToken,
        "INVALID_RECAPTCHA_ACTION": .invalidRecaptchaAction,
        "RECAPTCHA_NOT_ENABLED": .recaptchaNotEnabled,
        "MISSING_CLIENT_TYPE": .missingClientType,
        "MISSING_RECAPTCHA_VERSION": .missingRecaptchaVersion,
        "INVALID_RECAPTCHA_VERSION": .invalidRecaptchaVersion,
        "INVALID_REQ_TYPE": .invalidReqType,
        // Multi-factor
        "INVALID_MFA_PENDING_CREDENTIAL": .invalidMultiFactorSession,
        "MISSING_MFA_PENDING_CREDENTIAL": .missingMultiFactorSession,
        "MISSING_MFA_ENROLLMENT_ID": .missingMultiFactorInfo,
        "MFA_ENROLLMENT_NOT_FOUND": .multiFactorInfoNotFound,
        "SECOND_FACTOR_EXISTS": .secondFactorAlreadyEnrolled,
        "SECOND_FACTOR_LIMIT_EXCEEDED": .maximumSecondFactorCountExceeded,
        "UNSUPPORTED_FIRST_FACTOR": .unsupportedFirstFactor,
        // Passkeys (the others, PASSKEY_EXISTS and the like, are internal errors for the iOS SDK too)
        "INVALID_AUTHENTICATOR_RESPONSE": .invalidAuthenticatorResponse,
        "PASSKEY_ENROLLMENT_NOT_FOUND": .missingPasskeyEnrollment,
        // E-mail actions
        "EXPIRED_OOB_CODE": .expiredActionCode,
        "INVALID_OOB_CODE": .invalidActionCode,
        "INVALID_MESSAGE_PAYLOAD": .invalidMessagePayload,
        "INVALID_SENDER": .invalidSender,
        "INVALID_RECIPIENT_EMAIL": .invalidRecipientEmail,
        "MISSING_CONTINUE_URI": .missingContinueURI,
        "INVALID_CONTINUE_URI": .invalidContinueURI,
        "UNAUTHORIZED_DOMAIN": .unauthorizedDomain,
        "MISSING_IOS_BUNDLE_ID": .missingIosBundleID,
        "MISSING_ANDROID_PACKAGE_NAME": .missingAndroidPackageName,
        "INVALID_HOSTING_LINK_DOMAIN": .invalidHostingLinkDomain,
        // Project, key and request
        "API_KEY_INVALID": .invalidAPIKey,
        "MISSING_API_KEY": .invalidAPIKey,
        "INVALID_PROJECT_ID": .invalidAPIKey,
        "PERMISSION_DENIED": .appNotAuthorized,
        "INSUFFICIENT_PERMISSION": .appNotAuthorized,
        "UNAUTHENTICATED": .invalidUserToken,
        "TENANT_ID_MISMATCH": .tenantIDMismatch,
        "INVALID_TENANT_ID": .tenantIDMismatch,
        "UNSUPPORTED_TENANT_OPERATION": .unsupportedTenantOperation,
        "BLOCKING_FUNCTION_ERROR_RESPONSE": .blockingCloudFunctionError,
        "INVALID_JSON_PAYLOAD": .internalError,
        "INVALID_ARGUMENT": .internalError,
        "PAYLOAD_TOO_LARGE": .internalError,
        "NOT_FOUND": .internalError,
        "METHOD_NOT_ALLOWED": .internalError,
        "INTERNAL_ERROR": .internalError,
        "UNAVAILABLE": .networkError,
    ]

    /// Splits Google's `"CODE : detail"` message and maps the code; unknown codes are internal errors
    /// that keep the server's message.
    static func error(serverMessage: String, userInfo: [String: Any] = [:]) -> NSError {
        let parts = serverMessage.split(separator: ":", maxSplits: 1)
        let short = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? serverMessage
        let detail = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        // Some codes carry a qualifier after a space ("WEAK_PASSWORD : Password should be…").
        let code = codes[short] ?? codes[String(short.prefix { $0 != " " })]
        guard let code else {
            return AuthErrorCode.internalError.error(
                message: serverMessage, userInfo: userInfo.merging([AuthErrorUserInfoServerCodeKey: short]) { $1 })
        }
        var info = userInfo
        info[AuthErrorUserInfoServerCodeKey] = short
        return code.error(message: detail, userInfo: info)
    }
}

/// The server's own error code (`EMAIL_EXISTS`, `INVALID_REFRESH_TOKEN`…), for logs and for
/// telling apart server codes that share one client code. A HearthAuth addition.
public let AuthErrorUserInfoServerCodeKey = "HearthAuthErrorUserInfoServerCodeKey"
