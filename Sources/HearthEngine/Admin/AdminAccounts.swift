import Foundation
import HearthCore
import HearthStore

/// The Admin SDKs' `createUser` (`POST projects/{p}/accounts` with admin credentials).
public struct AdminCreateRequest: Sendable {
    public var localID: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var emailVerified: Bool
    public var disabled: Bool
    /// `mfaInfo`: phone second factors (see `MFAEnrollment.adminList`).
    public var mfaEnrollments: [MFAEnrollment] = []

    public init(
        localID: String? = nil, email: String? = nil, password: String? = nil, displayName: String? = nil,
        photoURL: String? = nil, phoneNumber: String? = nil, emailVerified: Bool = false, disabled: Bool = false
    ) {
        self.localID = localID
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.emailVerified = emailVerified
        self.disabled = disabled
    }
}

/// The Admin SDKs' `updateUser`, `setCustomUserClaims` and `revokeRefreshTokens` (`accounts:update` with admin
/// credentials). Absent fields are left as they are.
public struct AdminUpdateRequest: Sendable {
    public var localID: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var emailVerified: Bool?
    public var disabled: Bool?
    /// Serialized custom claims; `{}` clears them.
    public var customAttributes: String?
    /// Seconds since 1970: sessions that began earlier end (revokeRefreshTokens).
    public var validSince: Int64?
    public var deleteAttributes: [UpdateAccountRequest.Attribute]
    public var deleteProviders: [String]
    /// `mfa.enrollments`: replaces the second factors (an empty list removes them); nil leaves them.
    public var mfaEnrollments: [MFAEnrollment]? = nil
    /// `linkProviderUserInfo` (the Admin SDKs' `providerToLink`): an identity to link, replacing the user's link
    /// to the same provider. Admins only: a client that could link any raw id would own that identity's sign-ins.
    public var linkProvider: ProviderUserInfo? = nil
    /// `deletePasskey`: credential ids to remove, with the rules end users have (`UserRecord.deletePasskeys`).
    public var deletePasskeys: [String] = []

    public init(
        localID: String?, email: String? = nil, password: String? = nil, displayName: String? = nil,
        photoURL: String? = nil, phoneNumber: String? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil,
        customAttributes: String? = nil, validSince: Int64? = nil,
        deleteAttributes: [UpdateAccountRequest.Attribute] = [], deleteProviders: [String] = []
    ) {
        self.localID = localID
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.customAttributes = customAttributes
        self.validSince = validSince
        self.deleteAttributes = deleteAttributes
        self.deleteProviders = deleteProviders
    }
}

/// One entry of a `batchDelete` answer.
public struct BatchDeleteError: Sendable, Equatable {
    public var index: Int
    public var localID: String
    public var message: String
}

extension AuthEngine {
    /// Firebase's limit on uids (custom tokens and admin-chosen local ids alike).
    static let maxUIDLength = 128
    /// Most users one `batchGet`, `batchCreate` or `batchDelete` handles.
    public static let maxBatchSize = 1000

    public func adminCreateUser(_ r: AdminCreateRequest, origin: RequestOrigin) async throws -> UserRecord {
        try await audited("user.create", scope: origin.project.projectID, targetUID: r.localID) { change in
            let user = try await createUser(r, origin: origin)
            change.targetUID = user.uid
            change.after = AuditRedaction.snapshot(of: user)
            return user
        }
    }

    private func createUser(_ r: AdminCreateRequest, origin: RequestOrigin) async throws -> UserRecord {
        let project = origin.project
        if let uid = r.localID, uid.isEmpty || uid.count > Self.maxUIDLength { throw AuthError(.invalidLocalID) }
        let email = try r.email.map { e throws(AuthError) in try EmailAddress.normalize(e) }
        // Admins write numbers as leniently as Firebase's admin API takes them: E.164 of a plausible length.
        let phone = try r.phoneNumber.nonEmpty.map { p throws(AuthError) in
            try PhoneNumber.normalize(p, check: .length)
        }
        if let password = r.password { try project.passwordPolicy.check(password) }
        let hash = try await r.password.asyncMap { try await hasher.hash($0).encoded }
        let now = clock.now()
        let user = UserRecord(
            projectID: project.projectID, uid: r.localID ?? random.uid(), email: email,
            emailVerified: r.emailVerified, displayName: r.displayName.nonEmpty, photoURL: r.photoURL.nonEmpty,
            phoneNumber: phone, passwordHash: hash, passwordUpdatedAt: hash == nil ? nil : now,
            validSince: nowSecond(), disabled: r.disabled, createdAt: now, mfaEnrollments: r.mfaEnrollments)
        do { try await store.insertUser(user) } catch { throw mapStoreError(error) }
        logger.info("account created by admin", metadata: ["project": "\(project.projectID)", "uid": "\(user.uid)"])
        return user
    }

    /// Users by any mix of uid, e-mail, phone number and provider identity (provider id, raw id), each once, in
    /// the order asked; unknown ones are left out.
    public func adminLookup(
        localIDs: [String], emails: [String], phoneNumbers: [String],
        federatedUserIDs: [(providerID: String, rawID: String)] = [], origin: RequestOrigin
    ) async throws -> [UserRecord] {
        let projectID = origin.project.projectID
        var found: [UserRecord] = []
        func add(_ user: UserRecord?) {
            if let user, !found.contains(where: { $0.uid == user.uid }) { found.append(user) }
        }
        for uid in localIDs { add(try await store.user(projectID: projectID, uid: uid)) }
        for email in emails {
            guard let normalized = try? EmailAddress.normalize(email) else { continue }
            add(try await store.user(projectID: projectID, email: normalized))
        }
        for phone in phoneNumbers { add(try await store.user(projectID: projectID, phoneNumber: phone)) }
        for identity in federatedUserIDs {
            add(try await store.user(projectID: projectID, providerID: identity.providerID, rawID: identity.rawID))
        }
        return found
    }

    /// v3 `signOutUser`: every session of the user ends now (`validSince`, as `revokeRefreshTokens`).
    public func signOutUser(localID: String?, origin: RequestOrigin) async throws -> UserRecord {
        try await adminUpdateUser(
            AdminUpdateRequest(localID: localID, validSince: Int64(nowSecond().timeIntervalSince1970)), origin: origin)
    }

    public func adminUpdateUser(_ r: AdminUpdateRequest, origin: RequestOrigin) async throws -> UserRecord {
        try await audited(Self.auditAction(of: r), scope: origin.project.projectID, targetUID: r.localID) { change in
            let (before, after) = try await updateUser(r, origin: origin)
            await sendPasskeysRemovedNotice(before: before, after: after, origin: origin)
            change.before = AuditRedaction.snapshot(of: before)
            change.after = AuditRedaction.snapshot(of: after)
            if change.action == "mfa.remove", after.mfaEnrollments.count >= before.mfaEnrollments.count {
                change.action = "user.update"
            }
            return after
        }
    }

    /// The audit log's name for an admin update: the specific action when the request changes only that
    /// (the Admin SDKs' `setCustomUserClaims`, `revokeRefreshTokens`, disabling, removing factors or passkeys), else
    /// `user.update`.
    static func auditAction(of r: AdminUpdateRequest) -> String {
        let onlyClaims = r.customAttributes != nil
        let onlyValidSince = r.validSince != nil
        let onlyDisabled = r.disabled != nil
        let onlyMFA = r.mfaEnrollments != nil
        let onlyPasskeys = !r.deletePasskeys.isEmpty
        let changes = [
            r.email != nil, r.password != nil, r.displayName != nil, r.photoURL != nil, r.phoneNumber != nil,
            r.emailVerified != nil, onlyDisabled, onlyClaims, onlyValidSince, !r.deleteAttributes.isEmpty,
            !r.deleteProviders.isEmpty, r.linkProvider != nil, onlyMFA, onlyPasskeys,
        ].filter { $0 }.count
        guard changes == 1 else { return "user.update" }
        if onlyClaims { return "user.claims" }
        if onlyValidSince { return "sessions.revoke" }
        if let disabled = r.disabled { return disabled ? "user.disable" : "user.enable" }
        if onlyMFA { return "mfa.remove" }
        if onlyPasskeys { return "passkey.remove" }
        return "user.update"
    }

    /// The user before and after the update.
    private func updateUser(_ r: AdminUpdateRequest, origin: RequestOrigin) async throws
        -> (before: UserRecord, after: UserRecord)
    {
        guard let uid = r.localID.nonEmpty else { throw AuthError(.missingLocalID) }
        let project = origin.project
        // Validate once, before any read, so a bad field never half-applies.
        let email = try r.email.map { e throws(AuthError) in try EmailAddress.normalize(e) }
        // Admins write numbers as leniently as Firebase's admin API takes them: E.164 of a plausible length.
        let phone = try r.phoneNumber.nonEmpty.map { p throws(AuthError) in
            try PhoneNumber.normalize(p, check: .length)
        }
        if let password = r.password { try project.passwordPolicy.check(password) }
        let claims = try r.customAttributes.map { c throws(AuthError) in try CustomClaims.validate(serialized: c) }
        let hash = try await r.password.asyncMap { try await hasher.hash($0).encoded }
        return try await retryingOnConflict {
            guard var user = try await store.user(projectID: project.projectID, uid: uid) else {
                throw AuthError(.userNotFound)
            }
            let before = user
            // A new password or address, disabling, or an explicit validSince (the Admin SDKs'
            // revokeRefreshTokens) ends every session that exists now.
            var endsSessions = hash != nil || r.disabled == true || r.validSince != nil
            if let email, email != user.email {
                user.email = email
                user.emailVerified = false
                endsSessions = true
            }
            if let hash {
                user.passwordHash = hash
                user.passwordUpdatedAt = clock.now()
                user.validSince = nowSecond()
            }
            if r.displayName != nil { user.displayName = r.displayName.nonEmpty }
            if r.photoURL != nil { user.photoURL = r.photoURL.nonEmpty }
            if r.phoneNumber != nil { user.phoneNumber = phone }
            if let verified = r.emailVerified { user.emailVerified = verified }
            if let disabled = r.disabled { user.disabled = disabled }
            if let claims { user.customClaims = claims }
            if let enrollments = r.mfaEnrollments { user.mfaEnrollments = enrollments }
            if let validSince = r.validSince { user.validSince = Date(timeIntervalSince1970: Double(validSince)) }
            user.delete(attributes: r.deleteAttributes, providers: r.deleteProviders)
            try user.deletePasskeys(r.deletePasskeys, emulator: origin.emulator)
            if let link = r.linkProvider {
                user.providers.removeAll { $0.providerID == link.providerID }
                user.providers.append(link)
            }
            try await save(&user)
            if endsSessions { try await endSessions(of: uid, projectID: project.projectID) }
            logger.info("account updated by admin", metadata: ["project": "\(project.projectID)", "uid": "\(uid)"])
            return (before, user)
        }
    }

    public func adminDeleteUser(localID: String?, origin: RequestOrigin) async throws {
        try await audited("user.delete", scope: origin.project.projectID, targetUID: localID) { change in
            guard let uid = localID.nonEmpty else { throw AuthError(.missingLocalID) }
            let before = try await store.user(projectID: origin.project.projectID, uid: uid)
            guard try await store.deleteUser(projectID: origin.project.projectID, uid: uid) else {
                throw AuthError(.userNotFound)
            }
            change.before = before.map(AuditRedaction.snapshot(of:))
            logger.info(
                "account deleted by admin", metadata: ["project": "\(origin.project.projectID)", "uid": "\(uid)"])
        }
    }

    /// A page of users in uid order (`batchGet`, the Admin SDKs' `listUsers`); the page token is the last uid.
    public func adminListUsers(maxResults: Int?, pageToken: String?, origin: RequestOrigin) async throws
        -> (users: [UserRecord], nextPageToken: String?)
    {
        let limit = maxResults ?? 20
        guard (1...Self.maxBatchSize).contains(limit) else {
            throw AuthError(.invalidArgument, "maxResults must be between 1 and \(Self.maxBatchSize).")
        }
        let users = try await store.users(
            projectID: origin.project.projectID, afterUID: pageToken.nonEmpty, limit: limit)
        return (users, users.count == limit ? users.last?.uid : nil)
    }

    /// `batchDelete`: enabled accounts are kept unless `force` (Firebase's NOT_DISABLED); unknown uids are skipped.
    public func adminBatchDelete(localIDs: [String], force: Bool, origin: RequestOrigin) async throws
        -> [BatchDeleteError]
    {
        guard (1...Self.maxBatchSize).contains(localIDs.count) else { throw AuthError(.localIDListExceedsLimit) }
        let projectID = origin.project.projectID
        var errors: [BatchDeleteError] = []
        for (index, uid) in localIDs.enumerated() {
            guard let user = try await store.user(projectID: projectID, uid: uid) else { continue }
            if !user.disabled && !force {
                errors.append(
                    BatchDeleteError(
                        index: index, localID: uid, message: "NOT_DISABLED : Disable the account before batch deletion."
                    ))
                continue
            }
            try await audited("user.delete", scope: projectID, targetUID: uid) { change in
                change.before = AuditRedaction.snapshot(of: user)
                _ = try await store.deleteUser(projectID: projectID, uid: uid)
            }
        }
        logger.info(
            "accounts deleted by admin",
            metadata: ["project": "\(projectID)", "count": "\(localIDs.count - errors.count)"])
        return errors
    }
}

extension AuthEngine {
    /// `accounts:query`: users in uid order, `limit` (at most 500, the default) after `offset`, or those matching
    /// `expressions` (e-mail, uid or phone number each); only a count when `returnUserInfo` is false.
    /// Sorting by other fields and descending order are not supported yet (INVALID_ARGUMENT).
    public func adminQuery(
        limit: Int?, offset: Int?, sortBy: String?, order: String?,
        expressions: [(email: String?, uid: String?, phoneNumber: String?)], returnUserInfo: Bool, origin: RequestOrigin
    ) async throws -> (count: Int, users: [UserRecord]?) {
        if let sortBy, !["USER_ID", "SORT_BY_FIELD_UNSPECIFIED"].contains(sortBy) {
            throw AuthError(.invalidArgument, "Hearth sorts queries by USER_ID only.")
        }
        if let order, !["ASC", "ORDER_UNSPECIFIED"].contains(order) {
            throw AuthError(.invalidArgument, "Hearth answers queries in ascending order only.")
        }
        let projectID = origin.project.projectID
        if !expressions.isEmpty {
            let users = try await adminLookup(
                localIDs: expressions.compactMap(\.uid), emails: expressions.compactMap(\.email),
                phoneNumbers: expressions.compactMap(\.phoneNumber), origin: origin)
            return (users.count, returnUserInfo ? users : nil)
        }
        guard returnUserInfo else { return (try await store.countUsers(projectID: projectID), nil) }
        let limit = limit ?? 500
        let offset = offset ?? 0
        guard (1...500).contains(limit), offset >= 0 else {
            throw AuthError(.invalidArgument, "limit must be 1–500 and offset not negative.")
        }
        var skipped = 0
        var after: String?
        while skipped < offset {
            let page = try await store.users(
                projectID: projectID, afterUID: after, limit: min(Self.maxBatchSize, offset - skipped))
            guard let last = page.last else { return (0, []) }
            skipped += page.count
            after = last.uid
        }
        let users = try await store.users(projectID: projectID, afterUID: after, limit: limit)
        return (users.count, users)
    }
}
