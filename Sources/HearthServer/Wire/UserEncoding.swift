import Foundation
import HearthCore
import HearthEngine

/// The wire shapes of users and sessions, with Firebase's field names and JSON types
/// (`createdAt` a string of milliseconds, `passwordUpdatedAt` a number, `validSince` a string of seconds…).
enum UserEncoding {
    /// "REDACTED" in base64: what production returns to non-admin callers instead of the hash.
    static let redactedHash = "UkVEQUNURUQ="

    /// A user as `accounts:lookup` shows it. Admins also see the password hash and salt (base64), as Firebase
    /// shows them to service accounts; end users see "REDACTED".
    static func userInfo(_ u: UserRecord, admin: Bool = false, emulator: Bool = false) -> JSONValue {
        // One dictionary filled in place (every lookup answers with it): `.compact`'s pairs cost a literal array of
        // optional tuples and its teardown through the runtime.
        var o = [String: JSONValue](minimumCapacity: 24)
        func put(_ key: String, _ value: String?) { if let value { o[key] = .string(value) } }
        o["localId"] = .string(u.uid)
        put("email", u.email)
        o["emailVerified"] = .bool(u.emailVerified)
        put("displayName", u.displayName)
        put("photoUrl", u.photoURL)
        put("screenName", u.screenName)
        put("phoneNumber", u.phoneNumber)
        if u.passwordHash != nil {
            let exported = admin ? u.passwordHash.flatMap(PasswordHash.init(encoded:))?.exportedBytes : nil
            o["passwordHash"] = .string(exported.map { Base64.encode($0.hash) } ?? redactedHash)
            put("salt", exported.map { Base64.encode($0.salt) })
        }
        if let at = u.passwordUpdatedAt { o["passwordUpdatedAt"] = .number(Double(at.millisecondsSince1970)) }
        o["validSince"] = .string(String(u.validSince.secondsSince1970))
        o["disabled"] = .bool(u.disabled)
        put("createdAt", String(u.createdAt.millisecondsSince1970))
        put("lastLoginAt", u.lastLoginAt.map { String($0.millisecondsSince1970) })
        put("lastRefreshAt", u.lastRefreshAt.map(iso8601))
        if u.customAuth { o["customAuth"] = .bool(true) }
        if u.emailLinkSignIn { o["emailLinkSignin"] = .bool(true) }
        put("initialEmail", u.initialEmail)
        put("customAttributes", u.customClaims)
        let providers = u.allProviderInfo
        if !providers.isEmpty { o["providerUserInfo"] = .array(providers.map(providerInfo)) }
        put("tenantId", TenantScope.split(u.projectID).tenant)
        if !u.mfaEnrollments.isEmpty { o["mfaInfo"] = .array(u.mfaEnrollments.map { $0.wireValue() }) }
        if !u.passkeys.isEmpty { o["passkeyInfo"] = .array(u.passkeys.map { passkeyInfo($0, emulator: emulator) }) }
        return .object(o)
    }

    /// `passkeyInfo[]`: Firebase's `credentialId` (standard padded base64) and `name`, plus when it was made and last
    /// used and whether it is synced (`backedUp`), which the SDKs ignore.
    static func passkeyInfo(_ p: PasskeyCredential, emulator: Bool) -> JSONValue {
        .compact([
            "credentialId": .string(PasskeyCredential.wireID(p.credentialID, emulator: emulator)),
            "name": .string(p.name),
            "createdAt": emulator ? nil : .string(iso8601(p.createdAt)),
            "lastUsedAt": emulator ? nil : p.lastUsedAt.map { .string(iso8601($0)) },
            "backedUp": emulator ? nil : .bool(p.backedUp),
        ])
    }

    /// Adds the session's tokens, or, for a user with second factors, `mfaPendingCredential` and the masked
    /// `mfaInfo` in their place: what every first-factor sign-in answers.
    static func withSession(_ value: JSONValue, _ tokens: SessionTokens?, _ challenge: SecondFactorChallenge?)
        -> JSONValue
    {
        guard let challenge, case .object(var o) = value else { return withTokens(value, tokens) }
        o["mfaPendingCredential"] = .string(challenge.pendingCredential)
        o["mfaInfo"] = .array(challenge.enrollments.map { $0.wireValue(masked: true) })
        return .object(o)
    }

    static func providerInfo(_ p: ProviderUserInfo) -> JSONValue {
        .compact([
            "providerId": .string(p.providerID),
            "rawId": .string(p.rawID),
            "federatedId": .text(p.federatedID),
            "email": .text(p.email),
            "displayName": .text(p.displayName),
            "photoUrl": .text(p.photoURL),
            "phoneNumber": .text(p.phoneNumber),
        ])
    }

    /// `accounts:update`'s answer about the updated user (without tokens).
    static func setAccountInfo(_ u: UserRecord) -> JSONValue {
        .compact([
            "kind": "identitytoolkit#SetAccountInfoResponse",
            "localId": .string(u.uid),
            "email": .text(u.email),
            "emailVerified": .bool(u.emailVerified),
            "displayName": .text(u.displayName),
            "photoUrl": .text(u.photoURL),
            "passwordHash": u.passwordHash == nil ? nil : .string(redactedHash),
            "providerUserInfo": .array(u.allProviderInfo.map(providerInfo)),
        ])
    }

    /// Adds `idToken`, `refreshToken` and `expiresIn` (a string) to a response object.
    static func withTokens(_ value: JSONValue, _ tokens: SessionTokens?) -> JSONValue {
        guard case .object(var o) = value, let tokens else { return value }
        o["idToken"] = .string(tokens.idToken)
        o["refreshToken"] = .string(tokens.refreshToken)
        o["expiresIn"] = .string(String(tokens.expiresIn))
        return .object(o)
    }

    static func iso8601(_ date: Date) -> String { date.rfc3339Milliseconds }
}
