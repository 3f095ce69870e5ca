/// Every error a client can cause, spelled as Firebase spells it on the wire.
///
/// This is the project's one error catalogue: routes, the engine and the stores
/// raise `AuthError` with one of these codes and never invent strings of their own.
public enum AuthErrorCode: String, Sendable, CaseIterable {
    // Request shape
    case invalidJSONPayload = "INVALID_JSON_PAYLOAD"  // carried as a 400 with Google's "Invalid JSON payload" message
    case missingAPIKey = "MISSING_API_KEY"
    case invalidAPIKey = "API_KEY_INVALID"
    case notFound = "NOT_FOUND"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case invalidProjectID = "INVALID_PROJECT_ID"
    case permissionDenied = "PERMISSION_DENIED"
    case insufficientPermission = "INSUFFICIENT_PERMISSION"
    case unauthenticated = "UNAUTHENTICATED"

    // Accounts
    case emailExists = "EMAIL_EXISTS"
    case emailNotFound = "EMAIL_NOT_FOUND"
    case invalidEmail = "INVALID_EMAIL"
    case missingEmail = "MISSING_EMAIL"
    case missingPassword = "MISSING_PASSWORD"
    case invalidPassword = "INVALID_PASSWORD"
    case weakPassword = "WEAK_PASSWORD"
    case passwordDoesNotMeetRequirements = "PASSWORD_DOES_NOT_MEET_REQUIREMENTS"
    case invalidLoginCredentials = "INVALID_LOGIN_CREDENTIALS"
    case userDisabled = "USER_DISABLED"
    case userNotFound = "USER_NOT_FOUND"
    case missingLocalID = "MISSING_LOCAL_ID"
    case missingIdentifier = "MISSING_IDENTIFIER"
    case invalidIdentifier = "INVALID_IDENTIFIER"
    case missingContinueURI = "MISSING_CONTINUE_URI"
    case invalidContinueURI = "INVALID_CONTINUE_URI"
    case invalidDisplayName = "INVALID_DISPLAY_NAME"
    case invalidPhotoURL = "INVALID_PHOTO_URL"
    case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
    case phoneNumberExists = "PHONE_NUMBER_EXISTS"
    case missingPhoneNumber = "MISSING_PHONE_NUMBER"
    case missingSessionInfo = "MISSING_SESSION_INFO"
    case invalidSessionInfo = "INVALID_SESSION_INFO"
    case missingCode = "MISSING_CODE"
    case invalidCode = "INVALID_CODE"
    case sessionExpired = "SESSION_EXPIRED"
    case invalidTemporaryProof = "INVALID_TEMPORARY_PROOF"
    case missingAppCredential = "MISSING_APP_CREDENTIAL"
    case invalidAppCredential = "INVALID_APP_CREDENTIAL"
    case missingIOSAppToken = "MISSING_IOS_APP_TOKEN"
    case providerAlreadyLinked = "PROVIDER_ALREADY_LINKED"
    case duplicateLocalID = "DUPLICATE_LOCAL_ID"
    case localIDExists = "LOCAL_ID_EXISTS"
    case invalidLocalID = "INVALID_LOCAL_ID"
    /// A field the caller may not send: a client's `localId` on signUp, or an admin's beside an `idToken`.
    case unexpectedParameter = "UNEXPECTED_PARAMETER"
    case credentialTooOldLoginAgain = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    case operationNotAllowed = "OPERATION_NOT_ALLOWED"
    case adminOnlyOperation = "ADMIN_ONLY_OPERATION"
    case tooManyAttemptsTryLater = "TOO_MANY_ATTEMPTS_TRY_LATER"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case invalidReqType = "INVALID_REQ_TYPE"
    case missingReqType = "MISSING_REQ_TYPE"
    case missingOobCode = "MISSING_OOB_CODE"
    case invalidOobCode = "INVALID_OOB_CODE"
    case missingNewEmail = "MISSING_NEW_EMAIL"
    // E-mail links: per-address reset limit and ActionCodeSettings checks
    case resetPasswordExceedLimit = "RESET_PASSWORD_EXCEED_LIMIT"
    case unauthorizedDomain = "UNAUTHORIZED_DOMAIN"
    case missingIOSBundleID = "MISSING_IOS_BUNDLE_ID"
    case missingAndroidPackageName = "MISSING_ANDROID_PACKAGE_NAME"
    case invalidHostingLinkDomain = "INVALID_HOSTING_LINK_DOMAIN"
    case invalidClaims = "INVALID_CLAIMS"
    case forbiddenClaim = "FORBIDDEN_CLAIM"
    case claimsTooLarge = "CLAIMS_TOO_LARGE"
    case invalidTenantID = "INVALID_TENANT_ID"
    case tenantIDMismatch = "TENANT_ID_MISMATCH"
    case tenantNotFound = "TENANT_NOT_FOUND"
    case projectDisabled = "PROJECT_DISABLED"
    case invalidBlockingFunction = "INVALID_BLOCKING_FUNCTION"
    case blockingFunctionErrorResponse = "BLOCKING_FUNCTION_ERROR_RESPONSE"
    case unsupportedTenantOperation = "UNSUPPORTED_TENANT_OPERATION"
    case passwordLoginDisabled = "PASSWORD_LOGIN_DISABLED"

    // Admin: batches, imports, session cookies
    case missingUserAccount = "MISSING_USER_ACCOUNT"
    case duplicateEmail = "DUPLICATE_EMAIL"
    case duplicateRawID = "DUPLICATE_RAW_ID"
    case maximumUserCountExceeded = "MAXIMUM_USER_COUNT_EXCEEDED"
    case localIDListExceedsLimit = "LOCAL_ID_LIST_EXCEEDS_LIMIT"
    case invalidHashAlgorithm = "INVALID_HASH_ALGORITHM"
    case invalidHashKey = "INVALID_HASH_KEY"
    case invalidHashRounds = "INVALID_HASH_ROUNDS"
    case invalidHashMemoryCost = "INVALID_HASH_MEMORY_COST"
    case invalidHashBlockSize = "INVALID_HASH_BLOCK_SIZE"
    case invalidHashParallelization = "INVALID_HASH_PARALLELIZATION"
    case invalidHashDerivedKeyLength = "INVALID_HASH_DERIVED_KEY_LENGTH"
    case invalidDuration = "INVALID_DURATION"
    case invalidCustomToken = "INVALID_CUSTOM_TOKEN"
    case credentialMismatch = "CREDENTIAL_MISMATCH"
    case missingCustomToken = "MISSING_CUSTOM_TOKEN"
    case invalidConfig = "INVALID_CONFIG"
    case invalidTestingPhoneNumber = "INVALID_TESTING_PHONE_NUMBER"
    case configurationExists = "CONFIGURATION_EXISTS"
    case configurationNotFound = "CONFIGURATION_NOT_FOUND"
    case missingOAuthClientID = "MISSING_OAUTH_CLIENT_ID"
    case missingIssuer = "MISSING_ISSUER"

    // OAuth 2.0 token endpoint (RFC 6749 §5.2), answered in OAuth's own error shape
    case oauthInvalidRequest = "invalid_request"
    case oauthInvalidGrant = "invalid_grant"
    case oauthUnsupportedGrantType = "unsupported_grant_type"

    // Federated sign-in
    case invalidIDPResponse = "INVALID_IDP_RESPONSE"
    case missingOrInvalidNonce = "MISSING_OR_INVALID_NONCE"
    case federatedUserIDAlreadyLinked = "FEDERATED_USER_ID_ALREADY_LINKED"
    case invalidCredentialOrProviderID = "INVALID_CREDENTIAL_OR_PROVIDER_ID"
    case invalidProviderID = "INVALID_PROVIDER_ID"
    case missingProviderID = "MISSING_PROVIDER_ID"
    case missingRawID = "MISSING_RAW_ID"
    case missingRequestURI = "MISSING_REQUEST_URI"
    case invalidRequestURI = "INVALID_REQUEST_URI"
    case invalidPendingToken = "INVALID_PENDING_TOKEN"

    // Second factors
    case missingMFAPendingCredential = "MISSING_MFA_PENDING_CREDENTIAL"
    case invalidMFAPendingCredential = "INVALID_MFA_PENDING_CREDENTIAL"
    /// mfaSignIn:finalize without a pending credential: Firebase's own (inconsistent) spelling there.
    case missingCredential = "MISSING_CREDENTIAL"
    case missingMFAEnrollmentID = "MISSING_MFA_ENROLLMENT_ID"
    case mfaEnrollmentNotFound = "MFA_ENROLLMENT_NOT_FOUND"
    case secondFactorExists = "SECOND_FACTOR_EXISTS"
    case secondFactorLimitExceeded = "SECOND_FACTOR_LIMIT_EXCEEDED"
    case unsupportedFirstFactor = "UNSUPPORTED_FIRST_FACTOR"
    case unverifiedEmail = "UNVERIFIED_EMAIL"
    case invalidMFAPhoneNumber = "INVALID_MFA_PHONE_NUMBER"
    case invalidMFAEnrollmentID = "INVALID_MFA_ENROLLMENT_ID"
    case duplicateMFAEnrollmentID = "DUPLICATE_MFA_ENROLLMENT_ID"

    // Tokens
    case invalidIDToken = "INVALID_ID_TOKEN"
    case missingIDToken = "MISSING_ID_TOKEN"
    case tokenExpired = "TOKEN_EXPIRED"
    case userMismatch = "USER_MISMATCH"
    case missingRefreshToken = "MISSING_REFRESH_TOKEN"
    case invalidRefreshToken = "INVALID_REFRESH_TOKEN"
    case missingGrantType = "MISSING_GRANT_TYPE"
    case invalidGrantType = "INVALID_GRANT_TYPE"
    case invalidArgument = "INVALID_ARGUMENT"
    case internalError = "INTERNAL_ERROR"
    case unavailable = "UNAVAILABLE"

    // Passkeys (v2 passkeyEnrollment / passkeySignIn): Google's codes, and the Auth Emulator's where it differs.
    case passkeyNotEnabled = "PASSKEY_NOT_ENABLED"
    case passkeyExists = "PASSKEY_EXISTS"
    case passkeyEnrollmentNotFound = "PASSKEY_ENROLLMENT_NOT_FOUND"
    case passkeyChallengeTimeout = "PASSKEY_CHALLENGE_TIMEOUT"
    case passkeyLimitExceeded = "PASSKEY_LIMIT_EXCEEDED"
    case invalidAuthenticatorResponse = "INVALID_AUTHENTICATOR_RESPONSE"
    case missingAuthenticatorResponse = "MISSING_AUTHENTICATOR_RESPONSE"
    /// The emulator's: a response without a credential `id`.
    case invalidCredentialID = "INVALID_CREDENTIAL_ID"
    /// The emulator's: a credential id enrolled on any user.
    case credentialAlreadyInUse = "CREDENTIAL_ALREADY_IN_USE"
    /// The emulator's: sign-in with a credential id no user has (production: USER_NOT_FOUND).
    case passkeyCredentialNotFound = "PASSKEY_CREDENTIAL_NOT_FOUND"
    /// Removing the last way a user can sign in (their only passkey, with no password, phone or provider).
    case lastSignInMethod = "LAST_SIGN_IN_METHOD"

    /// The HTTP status Firebase answers this code with.
    public var httpStatus: Int {
        switch self {
        case .missingAPIKey, .permissionDenied: 403
        case .unauthenticated: 401
        case .notFound, .configurationNotFound, .tenantNotFound: 404
        case .methodNotAllowed: 405
        case .payloadTooLarge: 413
        case .internalError: 500
        case .unavailable: 503
        default: 400
        }
    }

    /// The gRPC-style status name that Google APIs put in `error.status`.
    public var googleStatus: String {
        switch httpStatus {
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 405: "METHOD_NOT_ALLOWED"  // not a gRPC status; Google front ends answer 405 without one
        case 413: "INVALID_ARGUMENT"
        case 429: "RESOURCE_EXHAUSTED"
        case 500: "INTERNAL"
        case 503: "UNAVAILABLE"
        default: "INVALID_ARGUMENT"
        }
    }
}
