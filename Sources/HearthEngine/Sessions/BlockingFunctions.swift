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

    /// The event, as Identity Platform sends it: a JWT signed by this server's keys (unsigned in emulator mode),
    /// `aud` the function's URL, the user as `user_record`.
    func blockingEvent(_ event: String, url: String, user: UserRecord, provider: String, origin: RequestOrigin)
        throws -> String
    {
        let now = clock.now().secondsSince1970
        var record: [String: JSONValue] = [
            "uid": .string(user.uid), "email_verified": .bool(user.emailVerified), "disabled": .bool(user.disabled),
            "custom_claims": user.customClaims.flatMap { try? JSONValue(parsing: $0) } ?? [:],
            "provider_data": .array(
                user.providers.map { p in
                    var o: [String: JSONValue] = ["provider_id": .string(p.providerID), "uid": .string(p.rawID)]
                    if let email = p.email { o["email"] = .string(email) }
                    if let name = p.displayName { o["display_name"] = .string(name) }
                    if let photo = p.photoURL { o["photo_url"] = .string(photo) }
                    return .object(o)
                }),
            "metadata": [
                "creation_time": .number(Double(user.createdAt.millisecondsSince1970)),
                "last_sign_in_time": .number(Double((user.lastLoginAt ?? user.createdAt).millisecondsSince1970)),
            ],
        ]
        for (key, value) in [
            ("email", user.email), ("display_name", user.displayName), ("photo_url", user.photoURL),
            ("phone_number", user.phoneNumber), ("tenant_id", origin.project.tenantID),
        ] {
            if let value { record[key] = .string(value) }
        }
        var claims: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/\(origin.project.firebaseProjectID)"), "aud": .string(url),
            "iat": .number(Double(now)), "exp": .number(Double(now + 600)), "event_id": .string(random.token(bytes: 16)),
            "event_type": .string(event), "ip_address": .string(origin.clientIP ?? ""),
            "locale": .string(origin.locale ?? "en"), "sub": .string(user.uid), "user_record": .object(record),
            "sign_in_method": .string(provider),
        ]
        if let tenant = origin.project.tenantID { claims["tenant_id"] = .string(tenant) }
        return try idTokens.signEvent(claims)
    }

    /// Applies a function's answer to `user`; returns whether a stored field changed and the session claims.
    static func applyBlockingAnswer(_ answer: JSONValue, to user: inout UserRecord, event: String) throws(AuthError)
        -> (changed: Bool, sessionClaims: String?)
    {
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
            case "photoUrl":
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
