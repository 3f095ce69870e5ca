/// Where users, sessions, codes and run-time settings live: a project's own pool, or one of its Identity Platform
/// tenants. Stores key everything by one string, `ProjectConfig.projectID`: the project id for the project's pool,
/// `<project>/tenants/<tenant>` for a tenant (Google's resource name, and `/` occurs in neither id), so every store
/// method scopes by tenant without a second column, and a tenant's users cannot meet another scope's.
public enum TenantScope {
    public static func key(project: String, tenant: String?) -> String {
        guard let tenant else { return project }
        return "\(project)/tenants/\(tenant)"
    }

    /// The Firebase project and tenant of a scope key.
    public static func split(_ key: String) -> (project: String, tenant: String?) {
        // On UTF-8 rather than Foundation's `range(of:)`, which bridges: this runs on every request.
        let marker = "/tenants/".utf8
        let bytes = key.utf8
        var start = bytes.startIndex
        while let slash = bytes[start...].firstIndex(of: UInt8(ascii: "/")) {
            if bytes[slash...].starts(with: marker) {
                let tenantStart = bytes.index(slash, offsetBy: marker.count)
                return (String(key[..<slash]), String(key[tenantStart...]))
            }
            start = bytes.index(after: slash)
        }
        return (key, nil)
    }

    /// Every tenant scope key of `project` starts with this.
    public static func tenantPrefix(of project: String) -> String { project + "/tenants/" }
}

/// An Identity Platform tenant (`/v2/projects/{p}/tenants/{t}`) and the sign-in rules it sets for its users.
public struct Tenant: Sendable, Equatable {
    public var tenantID: String
    public var displayName: String?
    public var allowPasswordSignup: Bool
    public var enableEmailLinkSignin: Bool
    /// Client sign-ins are refused (PROJECT_DISABLED); admins still manage users.
    public var disableAuth: Bool
    public var enableAnonymousUser: Bool
    /// Kept as the admin API sent it (`state`, `enabledProviders`, `providerConfigs`).
    public var mfaConfig: JSONValue?
    public var testPhoneNumbers: [String: String]

    public init(
        tenantID: String, displayName: String? = nil, allowPasswordSignup: Bool = false,
        enableEmailLinkSignin: Bool = false, disableAuth: Bool = false, enableAnonymousUser: Bool = false,
        mfaConfig: JSONValue? = nil, testPhoneNumbers: [String: String] = [:]
    ) {
        self.tenantID = tenantID
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.disableAuth = disableAuth
        self.enableAnonymousUser = enableAnonymousUser
        self.mfaConfig = mfaConfig
        self.testPhoneNumbers = testPhoneNumbers
    }

    /// The fields an admin may set, as the v2 API names them (also the paths an `updateMask` may list).
    public static let fields = [
        "displayName", "allowPasswordSignup", "enableEmailLinkSignin", "disableAuth", "enableAnonymousUser",
        "mfaConfig", "testPhoneNumbers",
    ]

    /// Tenant ids Hearth generates (`<display-name>-<5 random>`), and any an emulator test names: letters, digits
    /// and hyphens, up to 63 characters.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 63
            && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    /// Display names: 4 to 20 characters, a letter first, then letters, digits and hyphens (Identity Platform's rule).
    public static func isValidDisplayName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard (4...20).contains(scalars.count), let first = scalars.first, first.properties.isAlphabetic,
            first.isASCII
        else { return false }
        return scalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    /// Applies the fields of `patch` (those `mask` names, or every field present when `mask` is nil).
    /// A wrongly typed field is INVALID_ARGUMENT; unknown fields are ignored, as the v2 API ignores them.
    public mutating func apply(_ patch: [String: JSONValue], mask: [String]?) throws(AuthError) {
        let selected = mask ?? Self.fields.filter { patch[$0] != nil }
        for path in selected {
            let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let field = parts[0]
            guard Self.fields.contains(field) else { continue }
            var value = patch[field]
            if parts.count > 1 {
                // A path into a field names a key of an object field (mfaConfig.state, testPhoneNumbers.<number>);
                // a path into a string, a boolean or a list names nothing and is ignored, as Google's masks are.
                guard parts.count == 2, field == "mfaConfig" || field == "testPhoneNumbers" else { continue }
                var merged =
                    (field == "mfaConfig"
                        ? mfaConfig?.objectValue : testPhoneNumbers.mapValues(JSONValue.string)) ?? [:]
                merged[parts[1]] = patch[field]?[parts[1]]
                value = .object(merged)
            }
            func bool() throws(AuthError) -> Bool {
                switch value {
                case nil, .null?: return false
                case .bool(let b)?: return b
                default: throw AuthError(.invalidArgument, "\(field) must be a boolean")
                }
            }
            switch field {
            case "displayName":
                switch value {
                case nil, .null?: displayName = nil
                case .string(let s)?:
                    guard Self.isValidDisplayName(s) else {
                        throw AuthError(
                            .invalidArgument,
                            "displayName must be 4-20 characters: a letter, then letters, digits or hyphens")
                    }
                    displayName = s
                default: throw AuthError(.invalidArgument, "displayName must be a string")
                }
            case "allowPasswordSignup": allowPasswordSignup = try bool()
            case "enableEmailLinkSignin": enableEmailLinkSignin = try bool()
            case "disableAuth": disableAuth = try bool()
            case "enableAnonymousUser": enableAnonymousUser = try bool()
            case "mfaConfig":
                guard value == nil || value == .null || value?.objectValue != nil else {
                    throw AuthError(.invalidArgument, "mfaConfig must be an object")
                }
                if let value, value != .null { _ = try MFASettings(json: value) }
                mfaConfig = value == .null ? nil : value
            case "testPhoneNumbers":
                var tests: [String: String] = [:]
                if let value, value != .null {
                    guard case .object(let map) = value else {
                        throw AuthError(.invalidTestingPhoneNumber, "testPhoneNumbers must map numbers to codes")
                    }
                    for (number, code) in map {
                        guard case .string(let code) = code else {
                            throw AuthError(.invalidTestingPhoneNumber, "the code for \(number) must be a string")
                        }
                        tests[number] = code
                    }
                }
                try PhoneSettings.validate(testPhoneNumbers: tests)
                testPhoneNumbers = tests
            default: break
            }
        }
    }

    /// The v2 API's view, `name` included.
    public func json(project: String) -> JSONValue {
        var out: [String: JSONValue] = [
            "name": .string("projects/\(project)/tenants/\(tenantID)"), "tenantId": .string(tenantID),
            "allowPasswordSignup": .bool(allowPasswordSignup), "enableEmailLinkSignin": .bool(enableEmailLinkSignin),
            "disableAuth": .bool(disableAuth), "enableAnonymousUser": .bool(enableAnonymousUser),
        ]
        if let displayName { out["displayName"] = .string(displayName) }
        out["mfaConfig"] = mfaConfig ?? ["state": "DISABLED", "enabledProviders": []]
        if !testPhoneNumbers.isEmpty { out["testPhoneNumbers"] = .object(testPhoneNumbers.mapValues(JSONValue.string)) }
        return .object(out)
    }

    /// Reads what `json(project:)` wrote (the stored form).
    public init?(stored: JSONValue) {
        guard let id = stored["tenantId"]?.stringValue else { return nil }
        self.init(tenantID: id)
        var fields = stored.objectValue ?? [:]
        fields["tenantId"] = nil
        fields["name"] = nil
        try? apply(fields, mask: nil)
        if let name = stored["displayName"]?.stringValue { displayName = name }
    }
}
