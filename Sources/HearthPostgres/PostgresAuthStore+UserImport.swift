import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// The batch import of `UserStore` on PostgreSQL: a few statements for a whole batch, with the decision of each entry
/// made in Swift over the holders read once.
extension PostgresAuthStore {
    /// A batch in a handful of round trips rather than several per user: what the batch's uids, e-mails, phone
    /// numbers, provider identities and passkeys already belong to is read once, each entry is then decided in order exactly
    /// as if the entries before it had been written (an overwritten user's old e-mail is free for the entries after
    /// it), and the accepted users are written with one multi-row statement per table.
    public func importUsers(_ users: [UserRecord], overwrite: Bool) async throws -> [Int: StoreError] {
        guard !users.isEmpty else { return [:] }
        return try await transaction { db in
            var failures: [Int: StoreError] = [:]
            var owners = try await Self.importOwners(db, users)
            var accepted: [UserRecord] = []
            var replaced: [UserRecord] = []
            for (index, user) in users.enumerated() {
                let key = ImportKey.uid(user.projectID, user.uid)
                let exists = owners.owner[key] != nil
                if exists && !overwrite {
                    failures[index] = .uidExists
                    continue
                }
                if let conflict = owners.conflict(for: user) {
                    failures[index] = conflict
                    continue
                }
                if exists { replaced.append(user) }
                owners.claim(user)
                accepted.append(user)
            }
            for group in Dictionary(grouping: replaced, by: \.projectID) {
                let uids = group.value.map(\.uid)
                try await db.run("DELETE FROM users WHERE project_id = \(group.key) AND uid = ANY(\(uids))")
                try await db.run("DELETE FROM provider_links WHERE project_id = \(group.key) AND uid = ANY(\(uids))")
                try await db.run(
                    "DELETE FROM passkey_credentials WHERE project_id = \(group.key) AND uid = ANY(\(uids))")
            }
            try await Self.insertRows(db, accepted)
            return failures
        }
    }

    /// One row-valued key a user holds in the store, unique per project.
    enum ImportKey: Hashable {
        case uid(String, String)
        case email(String, String)
        case phone(String, String)
        case identity(String, String, String)
        case passkey(String, [UInt8])

        static func held(by user: UserRecord) -> [ImportKey] {
            var keys = [ImportKey.uid(user.projectID, user.uid)]
            if let email = user.email { keys.append(.email(user.projectID, email)) }
            if let phone = user.phoneNumber { keys.append(.phone(user.projectID, phone)) }
            keys += user.providers.map { .identity(user.projectID, $0.providerID, $0.rawID) }
            keys += user.passkeys.map { .passkey(user.projectID, $0.credentialID) }
            return keys
        }
    }

    /// Who holds each key a batch asks about, as the batch goes: the store's holders first, then the entries taken.
    struct ImportOwners {
        var owner: [ImportKey: String] = [:]
        /// The keys each holder has, to release them all when an entry overwrites that holder.
        var keys: [String: [ImportKey]] = [:]

        mutating func hold(_ key: ImportKey, by uid: String, project: String) {
            owner[key] = uid
            keys[project + "\u{0}" + uid, default: []].append(key)
        }

        /// The first key the user would take from another holder, checked in Firebase's order (phone, e-mail,
        /// provider identity), then its passkeys.
        func conflict(for user: UserRecord) -> StoreError? {
            func taken(_ key: ImportKey) -> Bool { owner[key].map { $0 != user.uid } ?? false }
            if let phone = user.phoneNumber, taken(.phone(user.projectID, phone)) { return .phoneNumberExists }
            if let email = user.email, taken(.email(user.projectID, email)) { return .emailExists }
            if user.providers.contains(where: { taken(.identity(user.projectID, $0.providerID, $0.rawID)) }) {
                return .federatedIDExists
            }
            if user.passkeys.contains(where: { taken(.passkey(user.projectID, $0.credentialID)) }) {
                return .passkeyExists
            }
            return nil
        }

        /// The user replaces whatever its uid held and holds its own keys.
        mutating func claim(_ user: UserRecord) {
            for key in keys.removeValue(forKey: user.projectID + "\u{0}" + user.uid) ?? [] { owner[key] = nil }
            for key in ImportKey.held(by: user) { hold(key, by: user.uid, project: user.projectID) }
        }
    }

    /// The store's holders of the batch's keys, and every key those holders have (so an overwrite releases them),
    /// with the batch's existing users locked.
    static func importOwners(_ db: Transaction, _ users: [UserRecord]) async throws -> ImportOwners {
        var owners = ImportOwners()
        for group in Dictionary(grouping: users, by: \.projectID) {
            let project = group.key
            let uids = group.value.map(\.uid)
            let emails = group.value.compactMap(\.email)
            let phones = group.value.compactMap(\.phoneNumber)
            let links = group.value.flatMap(\.providers)
            let credentialIDs = group.value.flatMap(\.passkeys).map { ByteBuffer(bytes: $0.credentialID) }
            // Users holding any of the keys, then everything those users hold.
            let holders = try await db.run(
                """
                SELECT uid FROM users WHERE project_id = \(project)
                  AND (uid = ANY(\(uids)) OR email = ANY(\(emails)) OR phone_number = ANY(\(phones)))
                UNION
                SELECT l.uid FROM provider_links l
                  JOIN unnest(\(links.map(\.providerID))::text[], \(links.map(\.rawID))::text[]) AS k(provider_id, raw_id)
                    ON l.provider_id = k.provider_id AND l.raw_id = k.raw_id
                WHERE l.project_id = \(project)
                UNION
                SELECT uid FROM passkey_credentials
                WHERE project_id = \(project) AND credential_id = ANY(\(credentialIDs))
                """
            ).map { try $0.decode(String.self) }
            guard !holders.isEmpty else { continue }
            let rows = try await db.run(
                """
                SELECT uid, email, phone_number FROM users
                WHERE project_id = \(project) AND uid = ANY(\(holders)) FOR UPDATE
                """)
            for row in rows {
                let (uid, email, phone) = try row.decode((String, String?, String?).self)
                owners.hold(.uid(project, uid), by: uid, project: project)
                if let email { owners.hold(.email(project, email), by: uid, project: project) }
                if let phone { owners.hold(.phone(project, phone), by: uid, project: project) }
            }
            let identities = try await db.run(
                "SELECT uid, provider_id, raw_id FROM provider_links WHERE project_id = \(project) AND uid = ANY(\(holders))")
            for row in identities {
                let (uid, provider, raw) = try row.decode((String, String, String).self)
                owners.hold(.identity(project, provider, raw), by: uid, project: project)
            }
            let passkeys = try await db.run(
                "SELECT uid, credential_id FROM passkey_credentials WHERE project_id = \(project) AND uid = ANY(\(holders))")
            for row in passkeys {
                let (uid, id) = try row.decode((String, ByteBuffer).self)
                owners.hold(.passkey(project, Array(buffer: id)), by: uid, project: project)
            }
        }
        return owners
    }
}
