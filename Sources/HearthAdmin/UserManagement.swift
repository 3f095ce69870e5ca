import Foundation
import HearthCore

/// A user as the admin API returns it.
public struct AdminUser: Sendable, Equatable {
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var disabled: Bool
    /// Sessions that began before this are revoked.
    public var validSince: Date?
    public var customClaims: [String: JSONValue]
    public var providerIDs: [String]
    /// The user's second factors (the Admin SDKs' `multiFactor.enrolledFactors`).
    public var enrolledFactors: [SecondFactor]
    /// The user's passkeys (`passkeyInfo`).
    public var passkeys: [Passkey] = []

    /// An enrolled passkey: Firebase's `credentialId` (standard base64) and `name`, and when Hearth knows them, when
    /// it was made and last used and whether it is synced.
    public struct Passkey: Sendable, Equatable {
        public var credentialID: String
        public var name: String
        public var createdAt: Date?
        public var lastUsedAt: Date?
        public var backedUp: Bool?

        init?(_ o: JSONValue) {
            guard let id = o["credentialId"]?.stringValue else { return nil }
            credentialID = id
            name = o["name"]?.stringValue ?? ""
            let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
            createdAt = o["createdAt"]?.stringValue.flatMap { try? iso.parse($0) }
            lastUsedAt = o["lastUsedAt"]?.stringValue.flatMap { try? iso.parse($0) }
            backedUp = o["backedUp"]?.boolValue
        }
    }

    /// An enrolled second factor, as the Admin SDKs' `MultiFactorInfo` shows it.
    public struct SecondFactor: Sendable, Equatable {
        /// The enrollment id.
        public var uid: String
        /// `phone` or `totp`.
        public var factorID: String
        public var displayName: String?
        public var phoneNumber: String?
        public var enrollmentTime: Date?

        public init(
            uid: String, factorID: String = "phone", displayName: String? = nil, phoneNumber: String? = nil,
            enrollmentTime: Date? = nil
        ) {
            self.uid = uid
            self.factorID = factorID
            self.displayName = displayName
            self.phoneNumber = phoneNumber
            self.enrollmentTime = enrollmentTime
        }

        init?(_ o: JSONValue) {
            guard let id = o["mfaEnrollmentId"]?.stringValue else { return nil }
            let phone = o["phoneInfo"]?.stringValue
            self.init(
                uid: id, factorID: phone == nil ? "totp" : "phone", displayName: o["displayName"]?.stringValue,
                phoneNumber: phone,
                enrollmentTime: o["enrolledAt"]?.stringValue.flatMap {
                    try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0)
                })
        }

        /// `mfa.enrollments` / `mfaInfo` entry of a request (phone factors only, as the Admin SDKs allow).
        var request: JSONValue {
            var o: [String: JSONValue] = ["mfaEnrollmentId": .string(uid)]
            o["phoneInfo"] = phoneNumber.map(JSONValue.string)
            o["displayName"] = displayName.map(JSONValue.string)
            o["enrolledAt"] = enrollmentTime.map {
                .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format($0))
            }
            return .object(o)
        }
    }

    init(_ o: JSONValue) {
        uid = o["localId"]?.stringValue ?? ""
        email = o["email"]?.stringValue
        emailVerified = o["emailVerified"]?.boolValue ?? false
        displayName = o["displayName"]?.stringValue
        photoURL = o["photoUrl"]?.stringValue
        phoneNumber = o["phoneNumber"]?.stringValue
        disabled = o["disabled"]?.boolValue ?? false
        validSince = o["validSince"]?.stringValue.flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
        customClaims = o["customAttributes"]?.stringValue.flatMap { try? JSONValue(parsing: $0) }?.objectValue ?? [:]
        if case .array(let providers)? = o["providerUserInfo"] {
            providerIDs = providers.compactMap { $0["providerId"]?.stringValue }
        } else {
            providerIDs = []
        }
        enrolledFactors = (o["mfaInfo"]?.arrayValue ?? []).compactMap(SecondFactor.init)
        passkeys = (o["passkeyInfo"]?.arrayValue ?? []).compactMap(Passkey.init)
    }
}

/// The admin API's user management, as the Admin SDKs shape it.
public struct UserManagement: Sendable {
    let admin: HearthAdmin

    public func get(uid: String) async throws -> AdminUser { try await lookup(["localId": [.string(uid)]]) }
    public func get(email: String) async throws -> AdminUser { try await lookup(["email": [.string(email)]]) }
    public func get(phoneNumber: String) async throws -> AdminUser {
        try await lookup(["phoneNumber": [.string(phoneNumber)]])
    }

    private func lookup(_ body: JSONValue) async throws -> AdminUser {
        let reply = try await admin.call(.POST, "/accounts:lookup", body)
        guard case .array(let users)? = reply["users"], let user = users.first else {
            throw HearthAdminError.server(status: 404, code: "USER_NOT_FOUND", message: "USER_NOT_FOUND")
        }
        return AdminUser(user)
    }

    /// Creates a user; absent fields stay unset.
    public func create(
        uid: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil,
        phoneNumber: String? = nil, emailVerified: Bool = false, disabled: Bool = false
    ) async throws -> AdminUser {
        var body: [String: JSONValue] = ["emailVerified": .bool(emailVerified), "disabled": .bool(disabled)]
        body["localId"] = uid.map(JSONValue.string)
        body["email"] = email.map(JSONValue.string)
        body["password"] = password.map(JSONValue.string)
        body["displayName"] = displayName.map(JSONValue.string)
        body["phoneNumber"] = phoneNumber.map(JSONValue.string)
        let reply = try await admin.call(.POST, "/accounts", .object(body))
        return try await get(uid: reply["localId"]?.stringValue ?? "")
    }

    /// `enrolledFactors` replaces the user's second factors (phone factors; an empty list removes them all).
    public func update(
        uid: String, email: String? = nil, password: String? = nil, displayName: String? = nil,
        emailVerified: Bool? = nil, disabled: Bool? = nil, enrolledFactors: [AdminUser.SecondFactor]? = nil
    ) async throws -> AdminUser {
        var body: [String: JSONValue] = ["localId": .string(uid)]
        body["email"] = email.map(JSONValue.string)
        body["password"] = password.map(JSONValue.string)
        body["displayName"] = displayName.map(JSONValue.string)
        body["emailVerified"] = emailVerified.map(JSONValue.bool)
        body["disableUser"] = disabled.map(JSONValue.bool)
        body["mfa"] = enrolledFactors.map { ["enrollments": .array($0.map(\.request))] }
        _ = try await admin.call(.POST, "/accounts:update", .object(body))
        return try await get(uid: uid)
    }

    /// Custom claims for every ID token issued from now on (at most 1000 characters; empty clears them).
    public func setCustomClaims(uid: String, _ claims: [String: JSONValue]) async throws {
        _ = try await admin.call(
            .POST, "/accounts:update",
            ["localId": .string(uid), "customAttributes": .string(JSONValue.object(claims).jsonText)])
    }

    /// Ends every session of the user; `verifyIDToken(_:checkRevoked: true)` refuses their older tokens.
    public func revokeRefreshTokens(uid: String) async throws {
        let now = Int(Date().timeIntervalSince1970)
        _ = try await admin.call(
            .POST, "/accounts:update", ["localId": .string(uid), "validSince": .string(String(now))])
    }

    /// Removes passkeys by credential id (`AdminUser.Passkey.credentialID`, either base64 alphabet). Refused for an id
    /// the user does not have, and when it would leave the account no way to sign in.
    public func deletePasskeys(uid: String, credentialIDs: [String]) async throws -> AdminUser {
        _ = try await admin.call(
            .POST, "/accounts:update",
            ["localId": .string(uid), "deletePasskey": .array(credentialIDs.map(JSONValue.string))])
        return try await get(uid: uid)
    }

    public func delete(uid: String) async throws {
        _ = try await admin.call(.POST, "/accounts:delete", ["localId": .string(uid)])
    }

    /// One page of users in uid order; pass the returned token for the next page.
    public func list(maxResults: Int = 1000, pageToken: String? = nil) async throws
        -> (users: [AdminUser], nextPageToken: String?)
    {
        var path = "/accounts:batchGet?maxResults=\(maxResults)"
        if let pageToken, let escaped = pageToken.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) {
            path += "&nextPageToken=\(escaped)"
        }
        let reply = try await admin.call(.GET, path)
        guard case .array(let users)? = reply["users"] else { return ([], nil) }
        return (users.map(AdminUser.init), reply["nextPageToken"]?.stringValue)
    }
}
