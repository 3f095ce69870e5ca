import Foundation

/// The error codes HearthAuth reports, with FirebaseAuth's raw values so code that compares
/// `(error as NSError).code` against them keeps working.
public enum AuthErrorCode: Int, Error, Sendable, CaseIterable {
    case invalidCustomToken = 17000
    case customTokenMismatch = 17002
    case invalidCredential = 17004
    case userDisabled = 17005
    case operationNotAllowed = 17006
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case accountExistsWithDifferentCredential = 17012
    case requiresRecentLogin = 17014
    case providerAlreadyLinked = 17015
    case noSuchProvider = 17016
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case userMismatch = 17024
    case credentialAlreadyInUse = 17025
    case weakPassword = 17026
    case appNotAuthorized = 17028
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case invalidMessagePayload = 17031
    case invalidSender = 17032
    case invalidRecipientEmail = 17033
    case missingEmail = 17034
    case missingIosBundleID = 17036
    case missingAndroidPackageName = 17037
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17039
    case missingContinueURI = 17040
    case missingPhoneNumber = 17041
    case invalidPhoneNumber = 17042
    case missingVerificationCode = 17043
    case invalidVerificationCode = 17044
    case missingVerificationID = 17045
    case invalidVerificationID = 17046
    case missingAppCredential = 17047
    case invalidAppCredential = 17048
    case sessionExpired = 17051
    case quotaExceeded = 17052
    case missingAppToken = 17053
    case notificationNotForwarded = 17054
    case appNotVerified = 17055
    case captchaCheckFailed = 17056
    case webContextAlreadyPresented = 17057
    case webContextCancelled = 17058
    case appVerificationUserInteractionFailure = 17059
    case invalidClientID = 17060
    case webNetworkRequestFailed = 17061
    case webInternalError = 17062
    case webSignInUserInteractionFailure = 17063
    case localPlayerNotAuthenticated = 17066
    case nullUser = 17067
    case invalidProviderID = 17071
    case tenantIDMismatch = 17072
    case unsupportedTenantOperation = 17073
    case invalidHostingLinkDomain = 17214
    case rejectedCredential = 17075
    case gameKitNotLinked = 17076
    case secondFactorRequired = 17078
    case missingMultiFactorSession = 17081
    case missingMultiFactorInfo = 17082
    case invalidMultiFactorSession = 17083
    case multiFactorInfoNotFound = 17084
    case adminRestrictedOperation = 17085
    case unverifiedEmail = 17086
    case secondFactorAlreadyEnrolled = 17087
    case maximumSecondFactorCountExceeded = 17088
    case unsupportedFirstFactor = 17089
    case emailChangeNeedsVerification = 17090
    case missingClientIdentifier = 17093
    case missingOrInvalidNonce = 17094
    case blockingCloudFunctionError = 17105
    case recaptchaNotEnabled = 17200
    case missingRecaptchaToken = 17201
    case invalidRecaptchaToken = 17202
    case invalidRecaptchaAction = 17203
    case missingClientType = 17204
    case missingRecaptchaVersion = 17205
    case invalidRecaptchaVersion = 17206
    case invalidReqType = 17207
    case recaptchaSDKNotLinked = 17208
    case recaptchaSiteKeyMissing = 17209
    case recaptchaActionCreationFailed = 17210
    case passwordDoesNotMeetRequirements = 17211
    /// FirebaseAuth's passkey branch numbers this 17211, which its released SDK gives to
    /// `passwordDoesNotMeetRequirements`; Hearth keeps the released value and takes the next free one.
    case missingPasskeyEnrollment = 17212
    case invalidAuthenticatorResponse = 17213
    case keychainError = 17995
    case internalError = 17999
    case malformedJWT = 18000

    /// The code itself; FirebaseAuth offers it so `error.code` reads the same on both.
    public var code: AuthErrorCode { self }

    /// FirebaseAuth's name for the code (`ERROR_INVALID_API_KEY`), found under `AuthErrorUserInfoNameKey`.
    public var errorName: String {
        // The passkey branch names this one after the server's code.
        if self == .missingPasskeyEnrollment { return "ERROR_PASSKEY_ENROLLMENT_NOT_FOUND" }
        var words: [String] = []
        var current = ""
        let characters = Array(String(describing: self))
        for (i, c) in characters.enumerated() {
            let startsWord =
                c.isUppercase
                && (characters[max(i - 1, 0)].isLowercase
                    || (i + 1 < characters.count && characters[i + 1].isLowercase && !current.isEmpty))
            if startsWord && !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(c)
        }
        words.append(current)
        return "ERROR_" + words.map { $0.uppercased() }.joined(separator: "_")
    }

    /// What the user-facing `localizedDescription` says when the server gave no detail.
    var defaultMessage: String {
        switch self {
        case .invalidCustomToken: "The custom token format is incorrect."
        case .customTokenMismatch: "The custom token corresponds to a different project."
        case .invalidCredential: "The supplied credential is malformed, expired or incorrect."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed: "This sign-in method is not enabled for the project."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "Too many requests from this device. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier."
        case .accountExistsWithDifferentCredential:
            "An account already exists with the same email address but different sign-in credentials."
        case .requiresRecentLogin: "This operation is sensitive and requires a recent sign-in."
        case .providerAlreadyLinked: "The user can only be linked to one identity for the given provider."
        case .noSuchProvider: "The user is not linked to a user with the given provider."
        case .invalidUserToken: "The user's credential is no longer valid. The user must sign in again."
        case .networkError:
            "A network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential has expired. The user must sign in again."
        case .invalidAPIKey: "The API key is not valid for this server."
        case .userMismatch: "The supplied credentials do not correspond to the previously signed in user."
        case .credentialAlreadyInUse: "This credential is already associated with a different user account."
        case .weakPassword: "The password must be 6 characters long or more."
        case .missingEmail: "An email address must be provided."
        case .missingPhoneNumber: "A phone number must be provided."
        case .invalidPhoneNumber: "The phone number is not in a valid format (E.164)."
        case .missingVerificationCode: "The phone auth credential was created with an empty verification code."
        case .invalidVerificationCode: "The SMS verification code is invalid."
        case .missingVerificationID: "The phone auth credential was created with an empty verification ID."
        case .invalidVerificationID: "The verification ID is invalid."
        case .missingAppCredential: "The request lacks proof that it comes from the app."
        case .invalidAppCredential: "The app verification proof is invalid."
        case .sessionExpired: "The SMS code has expired. Send a new code and try again."
        case .quotaExceeded: "The quota for this operation has been exceeded."
        case .secondFactorRequired: "Please complete a second factor challenge to finish signing in."
        case .missingOrInvalidNonce: "The request does not contain a valid nonce."
        case .invalidAuthenticatorResponse:
            "The passkey authenticator response is not parseable, lacks required fields, or has invalid values."
        case .missingPasskeyEnrollment: "Cannot find the passkey linked to the current account."
        case .passwordDoesNotMeetRequirements: "The password does not meet the project's requirements."
        case .keychainError: "An error occurred while reading or writing the stored user."
        case .nullUser: "No user is signed in."
        case .invalidProviderID: "The provider ID is not valid."
        case .malformedJWT: "The token could not be decoded."
        default: "An internal error has occurred (\(errorName))."
        }
    }
}
