import Foundation
import HearthCore

/// What of a record the audit log may keep. One rule for every diff: users are described by `snapshot(of:)`, which
/// never includes a password hash, a salt or a second factor's secret; settings documents go through
/// `redacted(_:)`, which replaces the value of every secret-bearing key.
enum AuditRedaction {
    static let marker: JSONValue = "[redacted]"

    /// A user as the audit log shows it. A password is shown only as having changed (its update time); a passkey by
    /// its credential id (standard base64, as the admin API lists it), never its public key.
    static func snapshot(of user: UserRecord) -> JSONValue {
        var fields: [String: JSONValue] = [
            "uid": .string(user.uid), "emailVerified": .bool(user.emailVerified), "disabled": .bool(user.disabled),
            "validSince": .number(Double(user.validSince.secondsSince1970)),
            "providers": .array(user.providers.map { .string("\($0.providerID):\($0.rawID)") }),
            "mfa": .array(
                user.mfaEnrollments.map { enrollment in
                    switch enrollment.factor {
                    case .phone(let number): .string("phone:\(enrollment.id):\(number)")
                    case .totp: .string("totp:\(enrollment.id)")
                    }
                }),
            // Sorted: the stores load passkeys in different orders, and an order is no change.
            "passkeys": .array(user.passkeys.map { Base64.encode($0.credentialID) }.sorted().map(JSONValue.string)),
        ]
        fields["email"] = user.email.map(JSONValue.string)
        fields["displayName"] = user.displayName.map(JSONValue.string)
        fields["photoUrl"] = user.photoURL.map(JSONValue.string)
        fields["phoneNumber"] = user.phoneNumber.map(JSONValue.string)
        fields["customClaims"] = user.customClaims.map(JSONValue.string)
        fields["passwordUpdatedAt"] = user.passwordUpdatedAt.map { .number(Double($0.millisecondsSince1970)) }
        return .object(fields)
    }

    /// Key names whose values are secrets wherever they appear in a settings document (provider client secrets,
    /// private keys, SMTP and webhook credentials, hash keys).
    static func isSecret(_ key: String) -> Bool {
        let k = key.lowercased()
        return ["secret", "password", "privatekey", "private_key", "signerkey", "saltseparator", "salt", "apikey",
            "token", "credential"].contains { k.contains($0) }
    }

    static func redacted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let fields):
            .object(fields.reduce(into: [:]) { out, pair in
                out[pair.key] = isSecret(pair.key) ? marker : redacted(pair.value)
            })
        case .array(let items): .array(items.map(redacted))
        default: value
        }
    }

    /// `{"before": …, "after": …}` holding only the top-level keys that differ, redacted; nil when nothing differs
    /// or neither side exists. Compared before redaction, so a changed secret shows as a changed key.
    static func diff(before: JSONValue?, after: JSONValue?) -> String? {
        guard case .object(let a)? = before, case .object(let b)? = after else {
            if before == nil && after == nil { return nil }
            return JSONValue.object(["before": before.map(redacted) ?? .null, "after": after.map(redacted) ?? .null])
                .jsonText
        }
        var changedBefore: [String: JSONValue] = [:]
        var changedAfter: [String: JSONValue] = [:]
        for key in Set(a.keys).union(b.keys) where a[key] != b[key] {
            changedBefore[key] = isSecret(key) ? marker : a[key].map(redacted) ?? .null
            changedAfter[key] = isSecret(key) ? marker : b[key].map(redacted) ?? .null
        }
        if changedBefore.isEmpty { return nil }
        return JSONValue.object(["before": .object(changedBefore), "after": .object(changedAfter)]).jsonText
    }
}
