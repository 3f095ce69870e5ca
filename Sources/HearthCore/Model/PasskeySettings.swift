/// A project's (or tenant's) WebAuthn relying party, Identity Platform's `passkeyConfig` (config file key
/// `passkeyConfig`, and `GET`/`PATCH /v2/projects/{p}[/tenants/{t}]/passkeyConfig`):
///
/// ```
/// {"rpId": "example.com", "expectedOrigins": ["https://example.com", "android:apk-key-hash:…"]}
/// ```
///
/// Passkeys are off until an RP id and at least one origin are set (PASSKEY_NOT_ENABLED).
public struct PasskeySettings: Sendable, Equatable, Codable {
    /// The RP id: the registrable domain the credentials are scoped to (`example.com`, `localhost`).
    public var rpID: String
    /// The origins whose challenges are accepted: `https://…`, `http://localhost[:port]`, `android:apk-key-hash:…`.
    public var expectedOrigins: [String]
    /// Apple apps (`TEAMID.bundle.id`) the RP's domain lets use its passkeys: Hearth's
    /// `/.well-known/apple-app-site-association` lists them under `webcredentials` (config file only).
    public var appleAppIDs: [String] = []
    /// Android apps likewise, in `/.well-known/assetlinks.json` with `get_login_creds` (config file only).
    public var androidApps: [AndroidApp] = []

    public struct AndroidApp: Sendable, Equatable, Codable {
        public var packageName: String
        /// SHA-256 fingerprints of the signing certificates, `AA:BB:…` as Android's tools print them.
        public var sha256CertFingerprints: [String]

        public init(packageName: String, sha256CertFingerprints: [String]) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }

    public init(rpID: String = "", expectedOrigins: [String] = []) {
        self.rpID = rpID
        self.expectedOrigins = expectedOrigins
    }

    public var isEnabled: Bool { !rpID.isEmpty && !expectedOrigins.isEmpty }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case rpID = "rpId", expectedOrigins, appleAppIDs = "appleAppIds", androidApps
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            rpID: try c.decode(.rpID, default: ""), expectedOrigins: try c.decode(.expectedOrigins, default: []))
        appleAppIDs = try c.decode(.appleAppIDs, default: [])
        androidApps = try c.decode(.androidApps, default: [])
        do { try validate() } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    /// The RP id is a host name (no scheme, port or path); each origin is `https://host[:port]`,
    /// `http://localhost[:port]` (a secure context for browsers) or `android:apk-key-hash:<base64url SHA-256>`.
    public func validate() throws(AuthError) {
        if !rpID.isEmpty, !Self.isHostName(rpID) {
            throw AuthError(.invalidConfig, "passkeyConfig.rpId must be a host name, such as example.com")
        }
        for origin in expectedOrigins where !Self.isOrigin(origin) {
            throw AuthError(
                .invalidConfig,
                "passkeyConfig.expectedOrigins accepts https://host[:port], http://localhost[:port] and "
                    + "android:apk-key-hash:<hash>: \(origin)")
        }
    }

    static func isHostName(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253, !text.hasPrefix("."), !text.hasSuffix("."), !text.contains("..") else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "."
        }
    }

    static func isOrigin(_ origin: String) -> Bool {
        if origin.hasPrefix("android:apk-key-hash:") {
            let hash = origin.dropFirst("android:apk-key-hash:".count)
            return Base64.decode(hash)?.count == 32
        }
        let rest: Substring
        if origin.hasPrefix("https://") {
            rest = origin.dropFirst("https://".count)
        } else if origin.hasPrefix("http://localhost") {
            rest = origin.dropFirst("http://".count)
        } else {
            return false
        }
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let host = parts.first, isHostName(String(host)) else { return false }
        if origin.hasPrefix("http://"), host != "localhost" { return false }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65535).contains(port), String(port) == parts[1] else { return false }
        }
        return true
    }

    /// The stored run-time form (`passkeyConfig` in the settings document), as `json` writes it.
    public init(json: JSONValue) throws(AuthError) {
        guard case .object(let o) = json else { throw AuthError(.invalidConfig, "passkeyConfig must be an object") }
        switch o["rpId"] {
        case nil, .null?: rpID = ""
        case .string(let id)?: rpID = id
        default: throw AuthError(.invalidConfig, "passkeyConfig.rpId is a string")
        }
        switch o["expectedOrigins"] {
        case nil, .null?: expectedOrigins = []
        case .array(let items)?:
            let origins = items.compactMap(\.stringValue)
            guard origins.count == items.count else {
                throw AuthError(.invalidConfig, "passkeyConfig.expectedOrigins is a list of strings")
            }
            expectedOrigins = origins
        default: throw AuthError(.invalidConfig, "passkeyConfig.expectedOrigins is a list of strings")
        }
        try validate()
    }

    public var json: JSONValue {
        ["rpId": .string(rpID), "expectedOrigins": .array(expectedOrigins.map(JSONValue.string))]
    }

    /// A `PATCH …/passkeyConfig` laid over these settings: the fields `mask` names (all of them without one, as
    /// Google's APIs read a full update), validated.
    public func updated(with patch: [String: JSONValue], mask: [String]?) throws(AuthError) -> PasskeySettings {
        var merged = json.objectValue ?? [:]
        for field in mask ?? ["rpId", "expectedOrigins"] {
            guard field == "rpId" || field == "expectedOrigins" else {
                throw AuthError(
                    .invalidConfig, "passkeyConfig has no field \(field); updateMask names rpId, expectedOrigins")
            }
            merged[field] = patch[field] ?? .null
        }
        return try PasskeySettings(json: .object(merged)).keepingApps(of: self)
    }

    /// These run-time settings with the config file's apps, which the run-time resource does not hold.
    public func keepingApps(of file: PasskeySettings) -> PasskeySettings {
        var settings = self
        settings.appleAppIDs = file.appleAppIDs
        settings.androidApps = file.androidApps
        return settings
    }
}
