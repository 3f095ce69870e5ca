import Foundation
import HearthCore

/// The files `firebase auth:export` writes and `firebase auth:import` reads, which `hearth users export` and
/// `hearth users import` share: JSON (`{"users": [UserInfo…]}`) and headerless CSV with fixed columns.
///
/// Hearth's JSON export adds `hearthPasswordHash` to each user with a password: the stored hash with every
/// parameter, so a Hearth-to-Hearth move keeps hashes of mixed schemes without any hash flags.
public enum UserExportFormat: String, Sendable, CaseIterable {
    case json, csv

    /// Column of each provider's four fields (raw id, e-mail, display name, photo URL), as firebase-tools lays them out.
    static let providerColumns: [(String, Int)] = [
        (ProviderID.google, 7), (ProviderID.facebook, 11), (ProviderID.twitter, 15), (ProviderID.github, 19),
        (ProviderID.apple, 28), (ProviderID.microsoft, 32), (ProviderID.gameCenter, 36), (ProviderID.playGames, 40),
        (ProviderID.linkedin, 44), (ProviderID.yahoo, 48),
    ]
    static let columnCount = 52

    /// The format a file name implies (`.csv` or anything else as JSON).
    public static func guess(path: String) -> UserExportFormat { path.lowercased().hasSuffix(".csv") ? .csv : .json }

    public struct FileError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads every user of a file, or fails on the first malformed entry (so nothing is imported from a bad file).
    public func read(_ data: Data) throws -> [ImportedUser] {
        switch self {
        case .json: try Self.readJSON(data)
        case .csv: try Self.readCSV(String(decoding: data, as: UTF8.self))
        }
    }

    static func readJSON(_ data: Data) throws -> [ImportedUser] {
        let root: JSONValue
        do { root = try JSONValue.parse([UInt8](data)) } catch {
            throw FileError(description: "not valid JSON: \(error)")
        }
        guard case .array(let entries)? = root["users"] else {
            throw FileError(description: #"expected an object with a "users" array, as firebase auth:export writes"#)
        }
        return try entries.enumerated().map { index, entry in try importedUser(entry, index: index) }
    }

    /// One entry of a JSON export's `users` array.
    static func importedUser(_ entry: JSONValue, index: Int) throws -> ImportedUser {
        guard case .object(let o) = entry else { throw FileError(description: "users[\(index)] is not an object") }
        var user: ImportedUser
        switch Result(catching: { () throws(AuthError) in try ImportedUser(json: o) }) {
        case .success(let u): user = u
        case .failure(let error): throw FileError(description: "users[\(index)]: \(error.detail ?? error.message)")
        }
        user.encodedPasswordHash = o["hearthPasswordHash"]?.stringValue
        return user
    }

    static func readCSV(_ text: String) throws -> [ImportedUser] {
        var users: [ImportedUser] = []
        for (line, row) in try parseCSV(text).enumerated() where !(row.count == 1 && row[0].isEmpty) {
            func field(_ i: Int) -> String? { i < row.count && !row[i].isEmpty ? row[i] : nil }
            func fail(_ what: String) -> FileError { FileError(description: "line \(line + 1): \(what)") }
            guard row.count >= 7 else { throw fail("expected at least 7 columns, found \(row.count)") }
            var user = ImportedUser(localID: field(0))
            user.email = field(1)
            user.emailVerified = field(2) == "true"
            for (column, name) in [(3, "password hash"), (4, "salt")] {
                guard let text = field(column) else { continue }
                guard let bytes = Base64.decode(text) else {
                    throw fail("the \(name) is not base64")
                }
                if column == 3 { user.passwordHash = bytes } else { user.salt = bytes }
            }
            user.displayName = field(5)
            user.photoURL = field(6)
            for (provider, start) in providerColumns {
                guard let raw = field(start) else { continue }
                user.providers.append(
                    ProviderUserInfo(
                        providerID: provider, rawID: raw, email: field(start + 1), displayName: field(start + 2),
                        photoURL: field(start + 3)))
            }
            for (column, name) in [(23, "creation time"), (24, "last sign-in time")] {
                guard let text = field(column) else { continue }
                guard let ms = Int64(text) else { throw fail("the \(name) is not milliseconds: \(text)") }
                if column == 23 {
                    user.createdAt = Date(millisecondsSince1970: ms)
                } else {
                    user.lastLoginAt = Date(millisecondsSince1970: ms)
                }
            }
            user.phoneNumber = field(25)
            user.disabled = field(26) == "true"
            user.customAttributes = field(27)
            users.append(user)
        }
        return users
    }

    /// RFC 4180 fields: commas, CRLF or LF rows, double quotes with "" inside.
    static func parseCSV(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var chars = text.makeIterator()
        var pending: Character? = nil
        while let ch = pending ?? chars.next() {
            pending = nil
            if quoted {
                if ch == "\"" {
                    if let next = chars.next() {
                        if next == "\"" {
                            field.append("\"")
                        } else {
                            quoted = false
                            pending = next
                        }
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(ch)
                }
                continue
            }
            switch ch {
            case "\"" where field.isEmpty: quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\n", "\r\n", "\r":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.append(ch)
            }
        }
        if quoted { throw FileError(description: "unterminated quoted field on line \(rows.count + 1)") }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }

    // MARK: Writing

    /// One user as the export writes it.
    public func write(_ users: [UserRecord]) -> Data {
        switch self {
        case .json:
            let entries = users.map(Self.entry)
            return Data(JSONValue.object(["users": .array(entries)]).jsonBytes)
        case .csv:
            return Data(users.map { Self.csvRow($0) + "\n" }.joined().utf8)
        }
    }

    public static func entry(_ u: UserRecord) -> JSONValue {
        let hash = u.passwordHash.flatMap(PasswordHash.init(encoded:))
        var providers: [JSONValue] = []
        for p in u.providers {
            providers.append(
                .object(
                    [
                        "providerId": .string(p.providerID), "rawId": .string(p.rawID),
                    ].merging(
                        [("email", p.email), ("displayName", p.displayName), ("photoUrl", p.photoURL)].compactMap {
                            k, v in
                            v.map { (k, JSONValue.string($0)) }
                        }, uniquingKeysWith: { a, _ in a })))
        }
        var o: [String: JSONValue] = [
            "localId": .string(u.uid), "emailVerified": .bool(u.emailVerified), "disabled": .bool(u.disabled),
            "createdAt": .string(String(u.createdAt.millisecondsSince1970)),
        ]
        o["email"] = u.email.map(JSONValue.string)
        o["displayName"] = u.displayName.map(JSONValue.string)
        o["photoUrl"] = u.photoURL.map(JSONValue.string)
        o["phoneNumber"] = u.phoneNumber.map(JSONValue.string)
        o["customAttributes"] = u.customClaims.map(JSONValue.string)
        o["lastSignedInAt"] = u.lastLoginAt.map { .string(String($0.millisecondsSince1970)) }
        if let hash {
            o["passwordHash"] = .string(Base64.encode(hash.exportedBytes.hash))
            o["salt"] = .string(Base64.encode(hash.exportedBytes.salt))
            o["hearthPasswordHash"] = .string(hash.encoded)
        }
        if !providers.isEmpty { o["providerUserInfo"] = .array(providers) }
        if !u.mfaEnrollments.isEmpty { o["mfaInfo"] = .array(u.mfaEnrollments.map { $0.wireValue() }) }
        if !u.passkeys.isEmpty { o["passkeyInfo"] = .array(u.passkeys.map(passkeyEntry)) }
        return .object(o)
    }

    /// Firebase's `passkeyInfo` (`credentialId`, `name`) with what another Hearth needs to verify the credential
    /// (its public key, user handle and counter), binary fields in standard base64, times in milliseconds.
    static func passkeyEntry(_ p: PasskeyCredential) -> JSONValue {
        var o: [String: JSONValue] = [
            "credentialId": .string(Base64.encode(p.credentialID)), "name": .string(p.name),
            "userHandle": .string(Base64.encode(p.userHandle)), "publicKey": .string(Base64.encode(p.publicKey)),
            "alg": .number(Double(p.algorithm)), "signCount": .number(Double(p.signCount)),
            "backupEligible": .bool(p.backupEligible), "backedUp": .bool(p.backedUp),
            "aaguid": .string(Base64.encode(p.aaguid)), "attestationFormat": .string(p.attestationFormat),
            "createdAt": .string(String(p.createdAt.millisecondsSince1970)),
        ]
        o["lastUsedAt"] = p.lastUsedAt.map { .string(String($0.millisecondsSince1970)) }
        return .object(o)
    }

    static func csvRow(_ u: UserRecord) -> String {
        var row = Array(repeating: "", count: columnCount)
        let hash = u.passwordHash.flatMap(PasswordHash.init(encoded:))?.exportedBytes
        row[0] = u.uid
        row[1] = u.email ?? ""
        row[2] = u.emailVerified ? "true" : "false"
        row[3] = hash.map { Base64.encode($0.hash) } ?? ""
        row[4] = hash.map { Base64.encode($0.salt) } ?? ""
        row[5] = u.displayName ?? ""
        row[6] = u.photoURL ?? ""
        for p in u.providers {
            guard let start = providerColumns.first(where: { $0.0 == p.providerID })?.1 else { continue }
            row[start] = p.rawID
            row[start + 1] = p.email ?? ""
            row[start + 2] = p.displayName ?? ""
            row[start + 3] = p.photoURL ?? ""
        }
        row[23] = String(u.createdAt.millisecondsSince1970)
        row[24] = u.lastLoginAt.map { String($0.millisecondsSince1970) } ?? ""
        row[25] = u.phoneNumber ?? ""
        row[26] = u.disabled ? "true" : "false"
        row[27] = u.customClaims ?? ""
        return row.map(escape).joined(separator: ",")
    }

    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension PasswordHash {
    /// The `hearth users import` / `firebase auth:import` flags that re-import a hash of this kind, when the
    /// Firebase file format cannot carry its parameters (CSV, or another tool reading the JSON).
    public var importFlags: String {
        switch self {
        case .scrypt(let p, _, let hash), .standardScrypt(let p, _, let hash):
            "--hash-algo=STANDARD_SCRYPT --mem-cost=\(1 << p.logN) --block-size=\(p.r) --parallelization=\(p.p) --dk-len=\(hash.count)"
        case .firebaseScrypt(let p, _, _):
            "--hash-algo=SCRYPT --hash-key=\(Base64.encode(p.signerKey)) --salt-separator=\(Base64.encode(p.saltSeparator)) --rounds=\(p.rounds) --mem-cost=\(p.memoryCost)"
        case .bcrypt:
            "--hash-algo=BCRYPT"
        case .pbkdf2(let d, let rounds, _, _):
            "--hash-algo=\(d == .sha1 ? "PBKDF_SHA1" : "PBKDF2_SHA256") --rounds=\(rounds)"
        case .hmac(let d, let key, let order, _, _):
            "--hash-algo=HMAC_\(d.rawValue.uppercased()) --hash-key=\(Base64.encode(key)) --hash-input-order=\(order == .saltFirst ? "SALT_FIRST" : "PASSWORD_FIRST")"
        case .digest(let d, let rounds, let order, _, _):
            "--hash-algo=\(d.rawValue.uppercased()) --rounds=\(rounds) --hash-input-order=\(order == .saltFirst ? "SALT_FIRST" : "PASSWORD_FIRST")"
        }
    }
}
