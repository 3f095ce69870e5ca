import Foundation
import HearthCore

/// A user's passkeys as both stores' user reads aggregate them: a JSON array, one object per `passkey_credentials`
/// row, blobs in hex (SQLite's `hex()` is upper-case, PostgreSQL's `encode(…, 'hex')` lower), booleans as SQLite's
/// 0/1 or PostgreSQL's true/false. The SQL that builds it names the same keys (`storedKeys`).
extension PasskeyCredential {
    /// The columns of `passkey_credentials` besides the key (`project_id`, `uid`), in the order both schemas
    /// declare them; the blob columns are the ones read as hex.
    public static let storedColumns = [
        "credential_id", "user_handle", "public_key", "alg", "sign_count", "backup_eligible", "backed_up", "aaguid",
        "name", "attestation_format", "created_at", "last_used_at",
    ]
    public static let storedBlobColumns: Set<String> = ["credential_id", "user_handle", "public_key", "aaguid"]

    /// The credentials in `text` (nil or "[null]"-like aggregates of a user without passkeys give none), ordered by
    /// creation.
    public static func parseStored(_ text: String?) -> [PasskeyCredential] {
        guard let text, let value = try? JSONValue(parsing: text), let items = value.arrayValue else { return [] }
        return items.compactMap(stored).sorted {
            $0.createdAt != $1.createdAt
                ? $0.createdAt < $1.createdAt : $0.credentialID.lexicographicallyPrecedes($1.credentialID)
        }
    }

    static func stored(_ item: JSONValue) -> PasskeyCredential? {
        guard let id = hex(item["credential_id"]), let created = item["created_at"]?.doubleValue else { return nil }
        func flag(_ key: String) -> Bool {
            switch item[key] {
            case .bool(let b)?: b
            case .number(let n)?: n != 0
            default: false
            }
        }
        return PasskeyCredential(
            credentialID: id, userHandle: hex(item["user_handle"]) ?? [], publicKey: hex(item["public_key"]) ?? [],
            algorithm: Int(item["alg"]?.doubleValue ?? 0), signCount: UInt32(item["sign_count"]?.doubleValue ?? 0),
            backupEligible: flag("backup_eligible"), backedUp: flag("backed_up"), aaguid: hex(item["aaguid"]) ?? [],
            name: item["name"]?.stringValue ?? "", attestationFormat: item["attestation_format"]?.stringValue ?? "",
            createdAt: Date(millisecondsSince1970: Int64(created)),
            lastUsedAt: item["last_used_at"]?.doubleValue.map { Date(millisecondsSince1970: Int64($0)) })
    }

    static func hex(_ value: JSONValue?) -> [UInt8]? {
        guard var text = value?.stringValue, text.utf8.count % 2 == 0 else { return nil }
        return text.withUTF8 { chars in
            var valid = true
            let bytes = [UInt8](unsafeUninitializedCapacity: chars.count / 2) { out, initialized in
                for i in 0..<chars.count / 2 {
                    let high = nibble(chars[2 * i])
                    let low = nibble(chars[2 * i + 1])
                    if high | low > 15 {
                        valid = false
                        break
                    }
                    out[i] = high << 4 | low
                }
                initialized = valid ? chars.count / 2 : 0
            }
            return valid ? bytes : nil
        }
    }

    /// A hex digit's value, or 0xFF.
    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: 0xFF
        }
    }
}
