/// Project settings that may change at run time, in the shape of the Identity Platform admin config
/// (`/v2/projects/{p}/config`) and of the Firebase Auth Emulator's `/emulator/v1/projects/{p}/config`:
///
/// ```
/// signIn.phoneNumber.testPhoneNumbers         {"+16505553434": "123456"}
/// signIn.allowDuplicateEmails                 true: an account per provider even for one e-mail address
/// smsRegionConfig.allowByDefault.disallowedRegions / smsRegionConfig.allowlistOnly.allowedRegions
/// emailPrivacyConfig.enableImprovedEmailPrivacy
/// authorizedDomains
/// mfa                                         {"state", "enabledProviders", "providerConfigs"} (see MFASettings)
/// ```
///
/// Stored as the JSON object of every setting changed so far, laid over the config file's values.
public enum ProjectSettingsUpdate {
    /// The field paths that can be changed, as `updateMask` names them.
    public static let paths = [
        "signIn.phoneNumber.testPhoneNumbers", "signIn.allowDuplicateEmails", "smsRegionConfig",
        "emailPrivacyConfig.enableImprovedEmailPrivacy",
        "authorizedDomains", "blockingFunctions", "mfa",
    ]

    /// The top-level fields of Identity Platform's project config. A mask path under another name is no config
    /// field at all and is ignored, as Firebase ignores it; one under these that Hearth cannot change is refused.
    static let configFields: Set<String> = [
        "name", "signIn", "notification", "quota", "monitoring", "multiTenant", "authorizedDomains", "subtype",
        "client", "mfa", "blockingFunctions", "recaptchaConfig", "smsRegionConfig", "autodeleteAnonymousUsers",
        "passwordPolicyConfig", "emailPrivacyConfig", "mobileLinksConfig", "defaultHostingSite",
    ]

    /// Merges `patch` into the stored `settings`, only at `mask`. Without a mask the update is a full one, as in
    /// Google's APIs: every run-time setting takes the patch's value, and one the patch leaves out returns to the
    /// config file's. A path outside `paths` is INVALID_CONFIG; the result is checked by applying it to `base`.
    public static func merge(
        _ patch: [String: JSONValue], into settings: [String: JSONValue], mask: [String]?, base: ProjectConfig
    ) throws(AuthError) -> [String: JSONValue] {
        let named = (mask ?? paths).filter { configFields.contains(String($0.prefix { $0 != "." })) }
        // A mask may also name an object that holds a changeable field (`emailPrivacyConfig`): that means its fields.
        let selected = named.flatMap { path in
            paths.contains(path) ? [path] : paths.filter { $0.hasPrefix(path + ".") }.nonEmptyOr([path])
        }
        var merged = settings
        for path in selected {
            // A mask may name a field inside an object setting (`blockingFunctions.triggers`).
            guard paths.contains(path) || paths.contains(where: { path.hasPrefix($0 + ".") }) else {
                throw AuthError(.invalidConfig, "Hearth cannot change \(path) at run time; set it in the config file.")
            }
            set(value(at: path, in: patch) ?? .null, at: path, in: &merged)
        }
        if selected.contains("authorizedDomains"), case .array(let items)? = value(at: "authorizedDomains", in: patch) {
            try checkAuthorizedDomains(items.compactMap(\.stringValue))
        }
        _ = try base.applying(settings: merged)
        return merged
    }

    /// Each entry is a host as a browser's address bar holds it (`example.com`, `localhost`, `127.0.0.1`): a URL, a
    /// port or a path would never equal a redirect's host, so an update is refused rather than keep a dead entry.
    /// Checked on updates only: settings stored before this rule still load.
    static func checkAuthorizedDomains(_ domains: [String]) throws(AuthError) {
        if let bad = domains.first(where: { $0.contains("%") || BrowserURL.parseHost(Substring($0)) == nil }) {
            throw AuthError(.invalidConfig, "authorizedDomains: \(bad) is not a domain name, such as example.com")
        }
    }

    /// The run-time settings `patch` holds a value for: the mask of an update that changes only those.
    public static func paths(presentIn patch: [String: JSONValue]) -> [String] {
        paths.filter { value(at: $0, in: patch) != nil }
    }

    static func value(at path: String, in object: [String: JSONValue]) -> JSONValue? {
        var current: JSONValue = .object(object)
        for key in path.split(separator: ".") {
            guard let next = current[String(key)] else { return nil }
            current = next
        }
        return current
    }

    static func set(_ value: JSONValue, at path: String, in object: inout [String: JSONValue]) {
        let keys = path.split(separator: ".").map(String.init)
        func assign(_ object: inout [String: JSONValue], _ rest: ArraySlice<String>) {
            let key = rest.first!
            if rest.count == 1 {
                object[key] = value
                return
            }
            var child = object[key]?.objectValue ?? [:]
            assign(&child, rest.dropFirst())
            object[key] = .object(child)
        }
        assign(&object, keys[...])
    }
}

extension ProjectConfig {
    /// This configuration with run-time `settings` (see `ProjectSettingsUpdate`) laid over it.
    public func applying(settings: [String: JSONValue]) throws(AuthError) -> ProjectConfig {
        var config = self
        let get = { (path: String) in ProjectSettingsUpdate.value(at: path, in: settings) }
        if let numbers = get("signIn.phoneNumber.testPhoneNumbers"), numbers != .null {
            guard case .object(let map) = numbers else {
                throw AuthError(.invalidTestingPhoneNumber, "testPhoneNumbers must map numbers to codes")
            }
            var tests: [String: String] = [:]
            for (number, code) in map {
                guard case .string(let code) = code else {
                    throw AuthError(.invalidTestingPhoneNumber, "the code for \(number) must be a string")
                }
                tests[number] = code
            }
            try PhoneSettings.validate(testPhoneNumbers: tests)
            config.phone.testPhoneNumbers = tests
        }
        if let duplicates = get("signIn.allowDuplicateEmails"), duplicates != .null {
            guard let allow = duplicates.boolValue else {
                throw AuthError(.invalidConfig, "allowDuplicateEmails is a bool")
            }
            config.federation.allowDuplicateEmails = allow
        }
        if let regions = get("smsRegionConfig"), regions != .null {
            if case .array(let denied)? = regions["allowByDefault"]?["disallowedRegions"] {
                config.phone.allowedRegions = []
                config.phone.deniedRegions = denied.compactMap(\.stringValue)
            } else if case .array(let allowed)? = regions["allowlistOnly"]?["allowedRegions"] {
                config.phone.allowedRegions = allowed.compactMap(\.stringValue)
                config.phone.deniedRegions = []
            } else if regions["allowByDefault"] != nil {
                config.phone.allowedRegions = []
                config.phone.deniedRegions = []
            } else {
                throw AuthError(.invalidConfig, "smsRegionConfig needs allowByDefault or allowlistOnly")
            }
        }
        if let privacy = get("emailPrivacyConfig.enableImprovedEmailPrivacy"), privacy != .null {
            guard let on = privacy.boolValue else {
                throw AuthError(.invalidConfig, "enableImprovedEmailPrivacy is a bool")
            }
            config.emailEnumerationProtection = on
        }
        if case .object(let providers)? = settings["idpConfigs"] {
            for (id, provider) in providers.sorted(by: { $0.key < $1.key }) {
                guard case .object(let providerConfig) = provider else { continue }
                try IdentityProviderConfigs.apply(id, providerConfig, to: &config.federation)
            }
        }
        if let functions = get("blockingFunctions"), functions != .null {
            config.blockingFunctions = try BlockingFunctionSettings(config: functions)
        }
        if let domains = get("authorizedDomains"), domains != .null {
            guard case .array(let items) = domains else {
                throw AuthError(.invalidConfig, "authorizedDomains is a list")
            }
            // A list with a non-string in it is refused whole, not stored without the odd item.
            let domains = items.compactMap(\.stringValue)
            guard domains.count == items.count else {
                throw AuthError(.invalidConfig, "authorizedDomains is a list of strings")
            }
            config.authorizedDomains = domains
        }
        if let mfa = get("mfa"), mfa != .null {
            config.mfa = try MFASettings(json: mfa)
        }
        // Its own resource (`…/passkeyConfig`), not a field of the config: kept beside the config's settings.
        if let passkeys = settings["passkeyConfig"], passkeys != .null {
            config.passkeys = try PasskeySettings(json: passkeys).keepingApps(of: config.passkeys)
        }
        return config
    }

    /// The run-time settings' view of this configuration, in the admin config shape. The Firebase Auth Emulator's
    /// `signIn` holds only `allowDuplicateEmails` (and here the test numbers, when there are any); `emulator`
    /// answers in that shape.
    public func settingsView(emulator: Bool = false) -> JSONValue {
        var tests: [String: JSONValue] = [:]
        for (number, code) in self.phone.testPhoneNumbers { tests[number] = .string(code) }
        let regions: JSONValue =
            self.phone.allowedRegions.isEmpty
            ? ["allowByDefault": ["disallowedRegions": .array(self.phone.deniedRegions.map(JSONValue.string))]]
            : ["allowlistOnly": ["allowedRegions": .array(self.phone.allowedRegions.map(JSONValue.string))]]
        var signIn: [String: JSONValue] = ["allowDuplicateEmails": .bool(self.federation.allowDuplicateEmails)]
        if !emulator {
            signIn["email"] = ["enabled": true, "passwordRequired": true]
            signIn["anonymous"] = ["enabled": true]
        }
        if !emulator || !tests.isEmpty { signIn["phoneNumber"] = ["enabled": true, "testPhoneNumbers": .object(tests)] }
        return [
            "name": .string("projects/\(self.projectID)/config"),
            "signIn": .object(signIn),
            "smsRegionConfig": regions,
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(self.emailEnumerationProtection)],
            "authorizedDomains": .array(self.authorizedDomains.map(JSONValue.string)),
            "blockingFunctions": self.blockingFunctions.json,
            "mfa": self.mfa.json,
        ]
    }
}

extension PhoneSettings {
    /// Firebase's rules for test numbers: at most 10, each in E.164 form with a six-digit code.
    public static func validate(testPhoneNumbers tests: [String: String]) throws(AuthError) {
        guard tests.count <= 10 else { throw AuthError(.invalidTestingPhoneNumber, "at most 10 test phone numbers") }
        for (number, code) in tests.sorted(by: { $0.key < $1.key }) {
            guard (try? PhoneNumber.normalize(number, check: .length)) == number else {
                throw AuthError(
                    .invalidTestingPhoneNumber, "test phone number \(number) must be in E.164 form, like +16505553434")
            }
            guard code.utf8.count == 6, code.utf8.allSatisfy({ (48...57).contains($0) }) else {
                throw AuthError(.invalidTestingPhoneNumber, "the code for \(number) must be six digits")
            }
        }
    }
}

extension Array {
    fileprivate func nonEmptyOr(_ fallback: [Element]) -> [Element] { isEmpty ? fallback : self }
}
