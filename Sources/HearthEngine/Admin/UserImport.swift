import Foundation
import HearthCore
import HearthStore
import Logging

/// One user of an import: an entry of `accounts:batchCreate` or of a `firebase auth:export` file.
public struct ImportedUser: Sendable, Equatable {
    public var localID: String?
    public var email: String?
    public var emailVerified = false
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var disabled = false
    public var passwordHash: [UInt8]?
    public var salt: [UInt8]?
    /// A hash in Hearth's stored form, with its own parameters (Hearth's JSON export); used instead of
    /// `passwordHash` and the batch's hash settings.
    public var encodedPasswordHash: String?
    /// A password in the clear (`rawPassword`, as the Firebase emulator takes it): hashed here with Hearth's own
    /// parameters, never stored as given.
    public var rawPassword: String?
    public var customAttributes: String?
    public var createdAt: Date?
    public var lastLoginAt: Date?
    public var providers: [ProviderUserInfo] = []
    /// Phone second factors (`mfaInfo`, firebase auth:export's shape).
    public var mfaEnrollments: [MFAEnrollment] = []
    /// Passkeys (`passkeyInfo`) as Hearth exports them, with their public keys; an entry with only Firebase's
    /// `credentialId` and `name` carries no key to verify with and is not imported.
    public var passkeys: [PasskeyCredential] = []
    /// The tenant the entry says it belongs to; it must be the one imported into.
    public var tenantID: String?
    /// A `providerUserInfo` entry that names no identity: the entry is reported, not imported.
    public var linkProblem: LinkProblem?

    public enum LinkProblem: Sendable, Equatable {
        /// Neither `providerId` with `rawId` (or `federatedId`) nor a `federatedId`.
        case missingIDs
        /// A `federatedId` without the `providerId` it belongs to.
        case federatedIDOnly
    }

    public init(localID: String?) {
        self.localID = localID
    }

    /// Reads Firebase's `UserInfo` JSON: the shape of both `batchCreate` entries and `auth:export` files
    /// (`lastSignedInAt` is the export's name for `lastLoginAt`; times are milliseconds, as numbers or strings).
    public init(json o: [String: JSONValue]) throws(AuthError) {
        func string(_ key: String) throws(AuthError) -> String? {
            switch o[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case .number(let n)?: return n == n.rounded() ? String(Int64(n)) : String(n)
            case let other?: throw AuthError(.invalidArgument, "Invalid value at '\(key)': \(other.jsonText)")
            }
        }
        func bytes(_ key: String) throws(AuthError) -> [UInt8]? {
            guard let text = try string(key) else { return nil }
            guard let b = Base64.decode(text) else {
                throw AuthError(.invalidArgument, "Invalid value at '\(key)': not base64.")
            }
            return b
        }
        func date(_ key: String) throws(AuthError) -> Date? {
            guard let text = try string(key) else { return nil }
            guard let ms = Int64(text) else { throw AuthError(.invalidArgument, "Invalid value at '\(key)': \(text)") }
            return Date(millisecondsSince1970: ms)
        }
        localID = try string("localId")
        tenantID = try string("tenantId")
        email = try string("email")
        emailVerified = o["emailVerified"]?.boolValue ?? false
        displayName = try string("displayName")
        photoURL = try string("photoUrl")
        phoneNumber = try string("phoneNumber")
        disabled = o["disabled"]?.boolValue ?? false
        passwordHash = try bytes("passwordHash")
        salt = try bytes("salt")
        rawPassword = try string("rawPassword")
        customAttributes = try string("customAttributes")
        createdAt = try date("createdAt")
        let lastLogin = try date("lastLoginAt")
        lastLoginAt = lastLogin
        if lastLogin == nil { lastLoginAt = try date("lastSignedInAt") }
        if case .array(let factors)? = o["mfaInfo"] {
            // TOTP factors (`totpInfo`) carry no secret in an export and cannot be imported.
            let phones = factors.compactMap(\.objectValue).filter { $0["totpInfo"] == nil }
            mfaEnrollments = try MFAEnrollment.adminList(phones, newID: { SecureRandom.system.uid() }, now: Date())
        }
        if case .array(let entries)? = o["passkeyInfo"] {
            for entry in entries {
                if let passkey = try PasskeyCredential(exported: entry) { passkeys.append(passkey) }
            }
        }
        if case .array(let links)? = o["providerUserInfo"] {
            for case .object(let l) in links {
                let provider = (l["providerId"]?.stringValue).nonEmpty
                // Password and phone are the user's own fields, not links.
                if provider == ProviderID.password || provider == ProviderID.phone { continue }
                let federatedID = (l["federatedId"]?.stringValue).nonEmpty
                guard let provider, let raw = (l["rawId"]?.stringValue).nonEmpty ?? federatedID else {
                    if linkProblem == nil { linkProblem = federatedID == nil ? .missingIDs : .federatedIDOnly }
                    continue
                }
                providers.append(
                    ProviderUserInfo(
                        providerID: provider, rawID: raw, federatedID: l["federatedId"]?.stringValue,
                        email: l["email"]?.stringValue, displayName: l["displayName"]?.stringValue,
                        photoURL: l["photoUrl"]?.stringValue))
            }
        }
    }
}

/// A batch to import, with Firebase's options.
public struct UserImportRequest: Sendable {
    public var users: [ImportedUser]
    /// Required when any user has a `passwordHash`.
    public var hash: PasswordHashImport?
    /// Refuse the whole batch if it holds duplicate e-mails or provider identities.
    public var sanityCheck: Bool
    /// Replace stored users with the same uid instead of reporting them.
    public var allowOverwrite: Bool

    public init(
        users: [ImportedUser], hash: PasswordHashImport?, sanityCheck: Bool = false, allowOverwrite: Bool = false
    ) {
        self.users = users
        self.hash = hash
        self.sanityCheck = sanityCheck
        self.allowOverwrite = allowOverwrite
    }
}

/// A user that was not imported, with Firebase's message.
public struct UserImportError: Sendable, Equatable {
    public var index: Int
    public var message: String
}

/// Imports users with their existing password hashes: no rehashing, one store transaction per batch.
/// Shared by `accounts:batchCreate` and `hearth users import`.
public struct UserImporter: Sendable {
    public let store: AuthStore
    public let clock: AuthClock
    /// Hashes `rawPassword` entries; without one they are refused.
    public let hasher: PasswordHasher?

    /// Emulator mode: the emulator's wording where it has its own.
    public let emulator: Bool

    public init(store: AuthStore, clock: AuthClock = .system, hasher: PasswordHasher? = nil, emulator: Bool = false) {
        self.store = store
        self.clock = clock
        self.hasher = hasher
        self.emulator = emulator
    }

    /// Checks the batch as a whole (a bad batch imports nothing), then imports each valid user;
    /// returns the users that were not imported.
    public func importBatch(_ r: UserImportRequest, projectID: String) async throws -> [UserImportError] {
        guard !r.users.isEmpty else { throw AuthError(.missingUserAccount) }
        guard r.users.count <= AuthEngine.maxBatchSize else { throw AuthError(.maximumUserCountExceeded) }
        try r.hash?.validate()
        if r.hash == nil, r.users.contains(where: { $0.passwordHash != nil && $0.encodedPasswordHash == nil }) {
            throw AuthError(.invalidHashAlgorithm, "A hashAlgorithm is required to import password hashes.")
        }
        try checkDuplicates(r)

        let now = clock.now()
        let validSince = Date(timeIntervalSince1970: Double(now.secondsSince1970))
        var errors: [UserImportError] = []
        var records: [UserRecord] = []
        var recordIndex: [Int] = []
        for (index, original) in r.users.enumerated() {
            var entry = original
            if let raw = entry.rawPassword, entry.passwordHash == nil, entry.encodedPasswordHash == nil {
                guard let hasher, !raw.isEmpty else {
                    let reason = raw.isEmpty ? "rawPassword is empty" : "rawPassword is not taken by this importer"
                    errors.append(UserImportError(index: index, message: reason))
                    continue
                }
                entry.encodedPasswordHash = try await hasher.hash(raw).encoded
            }
            switch Result(catching: { () throws(AuthError) in
                try record(entry, projectID: projectID, hash: r.hash, now: now, validSince: validSince)
            }) {
            case .success(let user):
                records.append(user)
                recordIndex.append(index)
            case .failure(let error):
                errors.append(UserImportError(index: index, message: Self.message(error)))
            }
        }
        let conflicts = try await store.importUsers(records, overwrite: r.allowOverwrite)
        for (position, conflict) in conflicts {
            errors.append(UserImportError(index: recordIndex[position], message: Self.message(conflict)))
        }
        return errors.sorted { $0.index < $1.index }
    }

    /// Records an import of many batches (`hearth users import`) as one `user.import` event by the bound operator
    /// (`AuditActor.current`), as `accounts:batchCreate` records each of its own: counts, never hashes.
    public func recordImport(projectID: String, imported: Int, failed: Int, error: (any Error)?) async {
        guard let actor = AuditActor.current else { return }
        await AuthEngine.storeAudit(
            "user.import", actor: actor, scope: projectID,
            change: AuditChange(after: ["imported": .number(Double(imported)), "failed": .number(Double(failed))]),
            outcome: error, store: store, clock: clock, random: .system, logger: Logger(label: "hearth.audit"))
    }

    private func checkDuplicates(_ r: UserImportRequest) throws(AuthError) {
        if !r.allowOverwrite {
            var seen = Set<String>()
            for u in r.users where !seen.insert(u.localID ?? "").inserted {
                throw AuthError(.duplicateLocalID, u.localID ?? "")
            }
        }
        guard r.sanityCheck else { return }
        var emails = Set<String>()
        var identities = Set<String>()
        for u in r.users {
            if let email = u.email?.lowercased(), !emails.insert(email).inserted {
                throw AuthError(.duplicateEmail, email)
            }
            for p in u.providers where !identities.insert("\(p.providerID):\(p.rawID)").inserted {
                throw AuthError(.duplicateRawID, "Provider id(\(p.providerID)), Raw id(\(p.rawID))")
            }
        }
    }

    private func record(
        _ u: ImportedUser, projectID: String, hash: PasswordHashImport?, now: Date, validSince: Date
    ) throws(AuthError) -> UserRecord {
        guard let uid = u.localID.nonEmpty else { throw AuthError(.missingLocalID, "localId is missing") }
        if uid.count > AuthEngine.maxUIDLength { throw AuthError(.invalidLocalID, "localId is invalid") }
        if let tenant = u.tenantID.nonEmpty, tenant != TenantScope.split(projectID).tenant {
            throw AuthError(.tenantIDMismatch, "Tenant id in userInfo does not match the tenant id in request.")
        }
        switch u.linkProblem {
        case .missingIDs?:
            throw AuthError(.invalidArgument, "federatedId or (providerId & rawId) is required")
        case .federatedIDOnly?:
            throw AuthError(
                .invalidArgument,
                emulator
                    ? "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"
                    : "providerId is required with federatedId")
        case nil: break
        }
        var email: String?
        if let raw = u.email {
            do { email = try EmailAddress.normalize(raw) } catch { throw AuthError(.invalidEmail, "email is invalid") }
        }
        var phone: String?
        if let raw = u.phoneNumber.nonEmpty {
            do { phone = try PhoneNumber.normalize(raw, check: .length) } catch {
                throw AuthError(.invalidPhoneNumber, "phone number format is invalid")
            }
        }
        var stored: String?
        if let encoded = u.encodedPasswordHash {
            guard PasswordHash(encoded: encoded) != nil else {
                throw AuthError(.invalidArgument, "hearthPasswordHash is not a hash Hearth understands")
            }
            stored = encoded
        } else if let hashBytes = u.passwordHash, let hash {
            guard let made = hash.passwordHash(hash: hashBytes, salt: u.salt ?? []) else {
                throw AuthError(.invalidArgument, "password hash is invalid for \(hash.algorithm.rawValue)")
            }
            stored = made.encoded
        }
        let claims = try u.customAttributes.flatMap { c throws(AuthError) in try CustomClaims.validate(serialized: c) }
        // Firebase's rule: second factors only on an account with a verified e-mail.
        if !u.mfaEnrollments.isEmpty {
            guard email != nil else {
                throw AuthError(.invalidArgument, "Second factor account requires email to be presented.")
            }
            guard u.emailVerified else {
                throw AuthError(.invalidArgument, "Second factor account requires email to be verified.")
            }
        }
        return UserRecord(
            projectID: projectID, uid: uid, email: email, emailVerified: u.emailVerified,
            displayName: u.displayName.nonEmpty, photoURL: u.photoURL.nonEmpty, phoneNumber: phone,
            passwordHash: stored, passwordUpdatedAt: stored == nil ? nil : now, validSince: validSince,
            disabled: u.disabled, createdAt: u.createdAt ?? now, lastLoginAt: u.lastLoginAt,
            customClaims: claims, providers: u.providers, mfaEnrollments: u.mfaEnrollments
        ).withPasskeys(u.passkeys)
    }

    /// Firebase's per-entry messages.
    static func message(_ error: AuthError) -> String {
        switch error.code {
        case .invalidClaims: "Invalid custom claims provided."
        case .claimsTooLarge: "Custom claims provided are too large."
        case .forbiddenClaim: "Custom claims provided include a reserved claim."
        default: error.detail ?? error.code.rawValue
        }
    }

    static func message(_ conflict: StoreError) -> String {
        switch conflict {
        case .uidExists: "localId belongs to an existing account - can not overwrite."
        case .emailExists: "email exists in other account in database"
        case .phoneNumberExists: "phone number exists in other account in database"
        case .federatedIDExists: "raw id exists in other account in database"
        case .passkeyExists: "passkey credential id exists in other account in database"
        case .userNotFound, .versionConflict: "\(conflict)"
        }
    }
}

extension AuthEngine {
    /// `accounts:batchCreate`.
    public func adminImportUsers(_ r: UserImportRequest, origin: RequestOrigin) async throws -> [UserImportError] {
        try await audited("user.import", scope: origin.project.projectID) { change in
            let errors = try await importUsers(r, origin: origin)
            // Who was imported, never what: hashes and salts stay out of the log.
            change.after = [
                "imported": .number(Double(r.users.count - errors.count)), "failed": .number(Double(errors.count)),
            ]
            return errors
        }
    }

    private func importUsers(_ r: UserImportRequest, origin: RequestOrigin) async throws -> [UserImportError] {
        let errors = try await UserImporter(store: store, clock: clock, hasher: hasher, emulator: origin.emulator)
            .importBatch(
            r, projectID: origin.project.projectID)
        logger.info(
            "users imported",
            metadata: [
                "project": "\(origin.project.projectID)", "imported": "\(r.users.count - errors.count)",
                "failed": "\(errors.count)",
            ])
        return errors
    }
}

extension UserRecord {
    fileprivate func withPasskeys(_ passkeys: [PasskeyCredential]) -> UserRecord {
        var user = self
        user.passkeys = passkeys
        return user
    }
}

extension PasskeyCredential {
    /// A `passkeyInfo` entry of an export (`UserExportFormat.passkeyEntry`), nil when it has no public key (an
    /// export of Firebase's, which names credentials only).
    init?(exported entry: JSONValue) throws(AuthError) {
        guard case .object(let o) = entry, o["publicKey"]?.stringValue != nil else { return nil }
        func bytes(_ key: String) throws(AuthError) -> [UInt8] {
            guard let text = o[key]?.stringValue, let b = Base64.decode(text) else {
                throw AuthError(.invalidArgument, "Invalid value at 'passkeyInfo.\(key)': not base64.")
            }
            return b
        }
        func millis(_ key: String) -> Date? {
            (o[key]?.stringValue).flatMap { Int64($0) }.map(Date.init(millisecondsSince1970:))
        }
        let id = try bytes("credentialId")
        guard !id.isEmpty else { throw AuthError(.invalidArgument, "Invalid value at 'passkeyInfo.credentialId'.") }
        self.init(
            credentialID: id, userHandle: try bytes("userHandle"), publicKey: try bytes("publicKey"),
            algorithm: Int(o["alg"]?.doubleValue ?? -7),
            signCount: UInt32(clamping: Int64(o["signCount"]?.doubleValue ?? 0)),
            backupEligible: o["backupEligible"]?.boolValue ?? false, backedUp: o["backedUp"]?.boolValue ?? false,
            aaguid: (try? bytes("aaguid")) ?? [], name: o["name"]?.stringValue ?? "Unnamed Passkey",
            attestationFormat: o["attestationFormat"]?.stringValue ?? "", createdAt: millis("createdAt") ?? Date(),
            lastUsedAt: millis("lastUsedAt"))
    }
}
