import Foundation
import HearthCore
import HearthMessaging
import HearthStore

/// Identity Platform's blocking functions: `beforeCreate` runs before a new account is stored, `beforeSignIn`
/// before a session starts (`startSession`, so no sign-in path skips it). Each may refuse (its error message
/// reaches the client as BLOCKING_FUNCTION_ERROR_RESPONSE) or answer a `userRecord` whose `updateMask` names what
/// to change: `displayName`, `photoUrl`, `disabled`, `emailVerified`, `customClaims`, and for sign-ins
/// `sessionClaims`, which go into the session's ID tokens only.
extension AuthEngine {
    func runBeforeCreate(_ user: inout UserRecord, provider: String, origin: RequestOrigin) async throws {
        guard let url = origin.project.blockingFunctions.triggers["beforeCreate"] else { return }
        let answer = try await blockingFunctions.call(
            url, jwt: try blockingEvent("beforeCreate", url: url, user: user, provider: provider, origin: origin))
        _ = try Self.applyBlockingAnswer(answer, to: &user, event: "beforeCreate")
    }

    /// `beforeSendEmail` (`email_type` `PASSWORD_RESET` or `EMAIL_SIGN_IN`) and `beforeSendSms` (`sms_type`
    /// `SIGN_IN_OR_SIGN_UP`, `MULTI_FACTOR_SIGN_IN`, `MULTI_FACTOR_ENROLLMENT`), before the code is stored or sent:
    /// the function may refuse (an error answer) or answer `recaptchaActionOverride: "BLOCK"`, and then nothing is
    /// stored or sent. The event names the recipient (`email` / `phone_number`) and the account when there is one.
    func runBeforeSend(
        email type: String, to address: String, user: UserRecord?, origin: RequestOrigin
    ) async throws {
        try await runBeforeSend("beforeSendEmail", ["email_type": .string(type), "email": .string(address)], user, origin)
    }

    func runBeforeSend(
        sms type: String, to phoneNumber: String, user: UserRecord?, origin: RequestOrigin
    ) async throws {
        try await runBeforeSend(
            "beforeSendSms", ["sms_type": .string(type), "phone_number": .string(phoneNumber)], user, origin)
    }

    private func runBeforeSend(
        _ event: String, _ extra: [String: JSONValue], _ user: UserRecord?, _ origin: RequestOrigin
    ) async throws {
        guard let url = origin.project.blockingFunctions.triggers[event] else { return }
        let answer = try await blockingFunctions.call(
            url, jwt: try blockingEvent(event, url: url, user: user, provider: nil, origin: origin, extra: extra))
        try Self.refuseIfBlocked(answer)
    }

    /// Runs `beforeSignIn` for `user`; returns the user as the function left it and the session claims it gave.
    func runBeforeSignIn(_ user: UserRecord, provider: String, origin: RequestOrigin) async throws
        -> (UserRecord, sessionClaims: String?)
    {
        guard let url = origin.project.blockingFunctions.triggers["beforeSignIn"] else { return (user, nil) }
        let answer = try await blockingFunctions.call(
            url, jwt: try blockingEvent("beforeSignIn", url: url, user: user, provider: provider, origin: origin))
        var updated = user
        let (changed, sessionClaims) = try Self.applyBlockingAnswer(answer, to: &updated, event: "beforeSignIn")
        if changed {
            updated = try await retryingOnConflict {
                guard var fresh = try await store.user(projectID: user.projectID, uid: user.uid) else {
                    throw AuthError(.userNotFound)
                }
                _ = try Self.applyBlockingAnswer(answer, to: &fresh, event: "beforeSignIn")
                try await save(&fresh)
                return fresh
            }
        }
        if updated.disabled { throw AuthError(.userDisabled) }
        return (updated, sessionClaims)
    }

    /// The event, as Identity Platform sends it and Firebase's functions SDKs read it: a JWT signed by this
    /// server's keys (unsigned in emulator mode), `aud` the function's URL, the user as `user_record` (every
    /// provider, password and phone included, second factors, `tokens_valid_after_time`), the client's address,
    /// agent and locale, and for an IdP sign-in the provider's profile (`raw_user_info`), a SAML assertion's
    /// attributes (`sign_in_attributes`) and, as far as `forwardInboundCredentials` allows, its OAuth credentials.
    func blockingEvent(
        _ event: String, url: String, user: UserRecord?, provider: String?, origin: RequestOrigin,
        extra: [String: JSONValue] = [:]
    ) throws -> String {
        let now = clock.now().secondsSince1970
        var claims: [String: JSONValue] = extra.merging([
            "iss": .string("https://securetoken.google.com/\(origin.project.firebaseProjectID)"), "aud": .string(url),
            "iat": .number(Double(now)), "exp": .number(Double(now + 600)), "event_id": .string(random.token(bytes: 16)),
            "event_type": .string(event), "ip_address": .string(origin.clientIP ?? ""),
            "user_agent": .string(origin.userAgent ?? ""), "locale": .string(origin.locale ?? "en"),
        ]) { _, own in own }
        if let user {
            claims["sub"] = .string(user.uid)
            claims["user_record"] = Self.eventRecord(user, tenantID: origin.project.tenantID)
        }
        if let provider { claims["sign_in_method"] = .string(provider) }
        if let tenant = origin.project.tenantID { claims["tenant_id"] = .string(tenant) }
        if let federated = Self.federatedSignIn {
            claims["raw_user_info"] = .string(JSONValue.object(federated.rawUserInfo).jsonText)
            // A SAML sign-in's attributes, as an object (the functions SDKs' `credential.claims`).
            if let attributes = federated.signInAttributes { claims["sign_in_attributes"] = .object(attributes) }
            let forward = origin.project.blockingFunctions.forwardInboundCredentials
            if forward["idToken"] == true, let token = federated.idToken { claims["oauth_id_token"] = .string(token) }
            if forward["accessToken"] == true, let token = federated.accessToken {
                claims["oauth_access_token"] = .string(token)
                if let secret = federated.tokenSecret { claims["oauth_token_secret"] = .string(secret) }
            }
        }
        return try idTokens.signEvent(claims)
    }

    /// `user_record`: the user as the functions SDKs parse it (snake_case, times in milliseconds, except
    /// `tokens_valid_after_time` in seconds).
    static func eventRecord(_ user: UserRecord, tenantID: String?) -> JSONValue {
        var record: [String: JSONValue] = [
            "uid": .string(user.uid), "email_verified": .bool(user.emailVerified), "disabled": .bool(user.disabled),
            "custom_claims": user.customClaims.flatMap { try? JSONValue(parsing: $0) } ?? [:],
            "provider_data": .array(
                user.allProviderInfo.map { p in
                    var o: [String: JSONValue] = ["provider_id": .string(p.providerID), "uid": .string(p.rawID)]
                    if let email = p.email { o["email"] = .string(email) }
                    if let name = p.displayName { o["display_name"] = .string(name) }
                    if let photo = p.photoURL { o["photo_url"] = .string(photo) }
                    if let phone = p.phoneNumber { o["phone_number"] = .string(phone) }
                    return .object(o)
                }),
            "metadata": [
                "creation_time": .number(Double(user.createdAt.millisecondsSince1970)),
                "last_sign_in_time": .number(Double((user.lastLoginAt ?? user.createdAt).millisecondsSince1970)),
            ],
            "tokens_valid_after_time": .number(Double(user.validSince.secondsSince1970)),
        ]
        for (key, value) in [
            ("email", user.email), ("display_name", user.displayName), ("photo_url", user.photoURL),
            ("phone_number", user.phoneNumber), ("tenant_id", tenantID),
        ] {
            if let value { record[key] = .string(value) }
        }
        if !user.mfaEnrollments.isEmpty {
            record["multi_factor"] = [
                "enrolled_factors": .array(
                    user.mfaEnrollments.map { factor in
                        var o: [String: JSONValue] = [
                            "uid": .string(factor.id), "factor_id": .string(factor.factorID),
                            "enrollment_time": .string(factor.enrolledAt.rfc3339Milliseconds),
                        ]
                        if let name = factor.displayName { o["display_name"] = .string(name) }
                        if case .phone(let number) = factor.factor { o["phone_number"] = .string(number) }
                        return .object(o)
                    })
            ]
        }
        return .object(record)
    }

    /// What an IdP sign-in tells its blocking functions beyond the user: the provider's profile and credentials.
    /// Bound around the sign-in (`signInWithIdp`), so the events of every path it takes carry it.
    struct FederatedSignInDetails: Sendable {
        var rawUserInfo: [String: JSONValue]
        var idToken: String?
        var accessToken: String?
        var tokenSecret: String?
        var signInAttributes: [String: JSONValue]?
    }

    @TaskLocal static var federatedSignIn: FederatedSignInDetails?

    /// Applies a function's answer to `user`; returns whether a stored field changed and the session claims. A
    /// `recaptchaActionOverride` of `BLOCK` refuses, as reCAPTCHA's verdict would; `ALLOW` changes nothing here,
    /// since Hearth scores no request with reCAPTCHA Enterprise.
    static func applyBlockingAnswer(_ answer: JSONValue, to user: inout UserRecord, event: String) throws(AuthError)
        -> (changed: Bool, sessionClaims: String?)
    {
        try refuseIfBlocked(answer)
        guard let record = answer["userRecord"], record != .null else { return (false, nil) }
        guard let mask = record["updateMask"]?.stringValue else {
            throw AuthError(.blockingFunctionErrorResponse, "((Response UserRecord is missing updateMask.))")
        }
        var changed = false
        var sessionClaims: String?
        for field in mask.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let value = record[field]
            switch field {
            case "displayName":
                user.displayName = value?.stringValue
                changed = true
            case "photoUrl", "photoURL":  // the Node functions SDK writes photoUrl, the Python one photoURL
                user.photoURL = value?.stringValue
                changed = true
            case "disabled":
                user.disabled = value?.boolValue ?? false
                changed = true
            case "emailVerified":
                user.emailVerified = value?.boolValue ?? false
                changed = true
            case "customClaims":
                user.customClaims = try claimsText(value)
                changed = true
            case "sessionClaims" where event == "beforeSignIn":
                sessionClaims = try claimsText(value)
            default:
                break
            }
        }
        return (changed, sessionClaims)
    }

    static func refuseIfBlocked(_ answer: JSONValue) throws(AuthError) {
        if answer["recaptchaActionOverride"]?.stringValue == "BLOCK" {
            throw AuthError(.blockingFunctionErrorResponse, "((The blocking function blocked this request.))")
        }
    }

    private static func claimsText(_ value: JSONValue?) throws(AuthError) -> String? {
        guard let value, value != .null else { return nil }
        guard case .object(let object) = value else {
            throw AuthError(.blockingFunctionErrorResponse, "((Response has malformed claims.))")
        }
        try CustomClaims.validate(object)
        let text = value.jsonText
        if text.utf8.count > CustomClaims.maxLength { throw AuthError(.claimsTooLarge) }
        return object.isEmpty ? nil : text
    }
}
