import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import Hummingbird

/// Settings: the run-time settings of the project, or of one of its tenants (`?tenant=T`). Each section is its own
/// form, read from the project's configuration and saved through the admin API's use case (`PATCH
/// /v2/projects/{p}/config`, `PATCH …/tenants/{t}`, `PATCH …/passkeyConfig`, the provider-config API), run as the
/// signed-in admin (`Console.asAdmin`), so every save is one audit event and is validated as the API validates it.
struct ConsoleSettingsPages: Sendable {
    let console: Console
    var engine: AuthEngine { console.engine }

    static let notices = [
        "signIn": "Sign-in settings saved.", "provider": "Identity provider saved.", "domains": "Authorized domains saved.",
        "testPhones": "Test phone numbers saved.", "smsRegions": "SMS region policy saved.", "mfa": "Multi-factor settings saved.",
        "passkeys": "Passkey settings saved.", "privacy": "E-mail enumeration protection saved.",
        "blocking": "Blocking functions saved.", "testEmail": "Test e-mail sent.",
    ]

    func show(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let origin = try console.scope(visit)
        let notice = Self.notices[visit.field("done")].map { HTML("<p class=\"notice\" role=\"status\" id=\"notice\">\($0)</p>") } ?? ""
        return try render(visit, origin, message: notice, status: .ok)
    }

    func save(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let origin = try console.scope(visit)
        let section = visit.field("section")
        do {
            if section == "provider", !visit.field("clientSecret").isEmpty {
                // A provider secret is changed only with the admin's code again, as deleting a user is.
                try await ConsoleUserPages(console: console).confirmCode(visit)
            }
            try await console.asAdmin(visit) { try await apply(section, visit, origin) }
            return .redirect("/console/settings?\(Console.tenantQuery(origin))done=\(ConsoleUserPages.percentEncoded(section))")
        } catch let error as AuthError {
            let status =
                error.code == .tooManyAttemptsTryLater
                ? HTTPResponse.Status.tooManyRequests : HTTPResponse.Status(code: error.code.httpStatus)
            return try render(
                visit, origin, message: "<p class=\"error\" role=\"alert\" id=\"error\">\(error.message)</p>", status: status)
        }
    }

    // MARK: Saving

    /// One section's form as the admin API's update: its fields and its update mask.
    func apply(_ section: String, _ visit: ConsoleVisit, _ origin: RequestOrigin) async throws {
        let project = origin.project
        let tenant = project.tenant != nil
        func checked(_ name: String) -> JSONValue { .bool(visit.field(name) == "on") }
        func updateProject(_ patch: [String: JSONValue], mask: String) async throws {
            guard !tenant else {
                throw AuthError(.unsupportedTenantOperation, "This is a setting of the project, not of a tenant.")
            }
            _ = try await engine.updateProjectSettings(projectID: project.projectID, patch: patch, mask: [mask])
        }
        func updateTenant(_ patch: [String: JSONValue]) async throws {
            _ = try await engine.updateTenant(patch, mask: patch.keys.sorted(), origin: origin)
        }
        switch section {
        case "signIn" where tenant:
            let name = visit.field("displayName")
            try await updateTenant([
                "displayName": name.isEmpty ? .null : .string(name), "allowPasswordSignup": checked("allowPasswordSignup"),
                "enableEmailLinkSignin": checked("enableEmailLinkSignin"),
                "enableAnonymousUser": checked("enableAnonymousUser"), "disableAuth": checked("disableAuth"),
            ])
        case "signIn":
            try await updateProject(
                ["signIn": ["allowDuplicateEmails": checked("allowDuplicateEmails")]], mask: "signIn.allowDuplicateEmails")
        case "provider":
            let id = visit.field("providerId")
            var config: [String: JSONValue] = ["enabled": checked("enabled"), "clientId": .string(visit.field("clientId"))]
            if !visit.field("clientSecret").isEmpty { config["clientSecret"] = .string(visit.field("clientSecret")) }
            _ = try await engine.setIdentityProviderConfig(
                id, kind: id.hasPrefix("oidc.") ? .oidc : .builtIn, config: config, create: false,
                mask: config.keys.sorted(), origin: origin)
        case "domains":
            try await updateProject(
                ["authorizedDomains": .array(Self.lines(visit.field("authorizedDomains")).map(JSONValue.string))],
                mask: "authorizedDomains")
        case "testPhones":
            let numbers = Self.testPhoneNumbers(visit.field("testPhoneNumbers"))
            if tenant {
                try await updateTenant(["testPhoneNumbers": numbers])
            } else {
                try await updateProject(
                    ["signIn": ["phoneNumber": ["testPhoneNumbers": numbers]]], mask: "signIn.phoneNumber.testPhoneNumbers")
            }
        case "smsRegions":
            let regions = JSONValue.array(
                visit.field("regions").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map { .string($0.uppercased()) })
            let policy: JSONValue =
                visit.field("regionMode") == "allowlistOnly"
                ? ["allowlistOnly": ["allowedRegions": regions]] : ["allowByDefault": ["disallowedRegions": regions]]
            try await updateProject(["smsRegionConfig": policy], mask: "smsRegionConfig")
        case "mfa":
            let mfa = try Self.mfa(visit)
            if tenant { try await updateTenant(["mfaConfig": mfa]) } else { try await updateProject(["mfa": mfa], mask: "mfa") }
        case "passkeys":
            _ = try await engine.updatePasskeySettings(
                scope: project,
                patch: [
                    "rpId": .string(visit.field("rpId")),
                    "expectedOrigins": .array(Self.lines(visit.field("expectedOrigins")).map(JSONValue.string)),
                ], mask: ["rpId", "expectedOrigins"])
        case "privacy":
            try await updateProject(
                ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": checked("enableImprovedEmailPrivacy")]],
                mask: "emailPrivacyConfig.enableImprovedEmailPrivacy")
        case "blocking":
            var triggers: [String: JSONValue] = [:]
            for event in BlockingFunctionSettings.events where !visit.field(event).isEmpty {
                triggers[event] = ["functionUri": .string(visit.field(event))]
            }
            try await updateProject(["blockingFunctions": ["triggers": .object(triggers)]], mask: "blockingFunctions.triggers")
        case "testEmail":
            try await engine.sendTestEmail(template: visit.field("template"), to: visit.field("to"), origin: origin)
        default:
            throw AuthError(.invalidArgument, "Unknown settings section.")
        }
    }

    /// A text area's entries: one per line, trimmed, blank lines dropped.
    static func lines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `+16505553434 = 123456` lines as the config's number → code map; a line without `=` has an empty code, which
    /// the engine refuses with its own message.
    static func testPhoneNumbers(_ text: String) -> JSONValue {
        var numbers: [String: JSONValue] = [:]
        for line in lines(text) {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            numbers[parts[0]] = .string(parts.count > 1 ? parts[1] : "")
        }
        return .object(numbers)
    }

    /// The `mfa` object of the admin config from the form: state, SMS, TOTP and its adjacent intervals.
    static func mfa(_ visit: ConsoleVisit) throws -> JSONValue {
        var mfa: [String: JSONValue] = [
            "state": .string(visit.field("state")),
            "enabledProviders": visit.field("sms") == "on" ? ["PHONE_SMS"] : [],
        ]
        if visit.field("totp") == "on" {
            guard let intervals = Int(visit.field("adjacentIntervals")) else {
                throw AuthError(.invalidConfig, "totpProviderConfig.adjacentIntervals must be 0 to 10")
            }
            mfa["providerConfigs"] = [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": .number(Double(intervals))]]]
        }
        return .object(mfa)
    }

    // MARK: The page

    func render(_ visit: ConsoleVisit, _ origin: RequestOrigin, message: HTML, status: HTTPResponse.Status) throws
        -> Console.Answer
    {
        let project = origin.project
        let tenantID = project.tenantID
        let canChange = visit.admin?.role == .admin
        func hidden(_ name: String, _ value: String) -> HTML { "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">" }
        /// A section: a form with its Save button for admins; the same fields, disabled and outside any form, for viewers.
        func section(_ id: String, _ title: String, note: HTML = "", button: String = "Save", _ fields: HTML) -> HTML {
            let heading: HTML = "<h2 id=\"\(id)\">\(title)</h2>\(note)"
            guard canChange else { return heading + "<fieldset disabled aria-labelledby=\"\(id)\">\(fields)</fieldset>" }
            return heading + """
                <form method="post" action="/console/settings" aria-labelledby="\(id)">\(hidden("csrf", visit.csrf))\(hidden("section", sectionName(id)))\(hidden("tenant", tenantID ?? ""))
                \(fields)
                <p><button type="submit" id="save-\(id)">\(button)</button></p></form>
                """
        }
        func check(_ name: String, _ label: String, _ on: Bool, id: String? = nil) -> HTML {
            let id = id ?? name
            return "<label class=\"check\" for=\"\(id)\"><input id=\"\(id)\" name=\"\(name)\" type=\"checkbox\"\(on ? HTML(" checked") : "")> \(label)</label>"
        }
        func text(_ name: String, _ label: String, _ value: String, type: String = "text") -> HTML {
            "<label for=\"\(name)\">\(label)</label><input id=\"\(name)\" name=\"\(name)\" type=\"\(type)\" value=\"\(value)\">"
        }
        func area(_ name: String, _ label: String, _ lines: [String]) -> HTML {
            "<label for=\"\(name)\">\(label)</label><textarea id=\"\(name)\" name=\"\(name)\" spellcheck=\"false\">\(lines.joined(separator: "\n"))</textarea>"
        }

        var sections: [HTML] = []
        // Sign-in methods.
        if let tenant = project.tenant {
            sections.append(
                section(
                    "sign-in", "Sign-in providers",
                    """
                    \(text("displayName", "Display name (4 to 20 characters: a letter, then letters, digits or hyphens)", tenant.displayName ?? ""))
                    <fieldset><legend>Sign-in methods of this tenant</legend>
                    \(check("allowPasswordSignup", "E-mail and password", tenant.allowPasswordSignup))
                    \(check("enableEmailLinkSignin", "E-mail link", tenant.enableEmailLinkSignin))
                    \(check("enableAnonymousUser", "Anonymous", tenant.enableAnonymousUser))
                    \(check("disableAuth", "Refuse every sign-in (disableAuth)", tenant.disableAuth))
                    </fieldset>
                    <p class="muted">Phone sign-in is always on.</p>
                    """))
        } else {
            sections.append(
                section(
                    "sign-in", "Sign-in providers",
                    note: "<p class=\"muted\">The project's users sign in with e-mail and password, e-mail links, phone numbers and anonymously, as the config API reports (each tenant switches them for its own users).</p>",
                    check("allowDuplicateEmails", "One account per provider for the same e-mail address (allowDuplicateEmails)", project.federation.allowDuplicateEmails)))
        }
        // Identity providers: each its own form; the client secret is write-only.
        let providers =
            engine.identityProviderConfigs(kind: .builtIn, origin: origin) + engine.identityProviderConfigs(kind: .oidc, origin: origin)
        let providerForms: [HTML] = providers.compactMap { provider in
            guard let id = provider["name"]?.stringValue?.split(separator: "/").last.map(String.init) else { return nil }
            let slug = id.replacingOccurrences(of: ".", with: "-")
            let secret: HTML =
                canChange
                ? """
                <label for="client-secret-\(slug)">New client secret (empty keeps the current one)</label><input id="client-secret-\(slug)" name="clientSecret" type="password" autocomplete="off">
                <label for="code-\(slug)">Your authenticator code (needed to change the secret)</label><input id="code-\(slug)" name="code" type="text" inputmode="numeric" autocomplete="off">
                """ : ""
            let fields: HTML = """
                \(check("enabled", "Enabled", provider["enabled"]?.boolValue ?? false, id: "enabled-\(slug)"))
                <label for="client-id-\(slug)">Client id</label><input id="client-id-\(slug)" name="clientId" type="text" value="\(provider["clientId"]?.stringValue ?? "")">
                \(secret)
                """
            guard canChange else {
                return "<h3 id=\"provider-\(slug)\">\(id)</h3><fieldset disabled aria-labelledby=\"provider-\(slug)\">\(fields)</fieldset>"
            }
            return """
                <h3 id="provider-\(slug)">\(id)</h3>
                <form method="post" action="/console/settings" aria-labelledby="provider-\(slug)">\(hidden("csrf", visit.csrf))\(hidden("section", "provider"))\(hidden("tenant", tenantID ?? ""))\(hidden("providerId", id))
                \(fields)
                <p><button type="submit" id="save-provider-\(slug)">Save \(id)</button></p></form>
                """
        }
        sections.append(
            """
            <h2 id="providers">Identity providers</h2>
            \(providerForms.isEmpty ? HTML("<p class=\"muted\">No identity provider is set up. Add one with the admin API (defaultSupportedIdpConfigs, oauthIdpConfigs) or the config file.</p>") : "\(providerForms)")
            """)
        if tenantID == nil {
            sections.append(
                section(
                    "domains", "Authorized domains",
                    area("authorizedDomains", "Authorized domains, one per line (such as app.example.com)", project.authorizedDomains)))
        }
        sections.append(
            section(
                "test-phones", "Test phone numbers",
                area(
                    "testPhoneNumbers", "Test phone numbers, one per line: E.164 number = six-digit code",
                    project.phone.testPhoneNumbers.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" })))
        if tenantID == nil {
            let allowlist = !project.phone.allowedRegions.isEmpty
            sections.append(
                section(
                    "sms-regions", "SMS region policy",
                    """
                    <label for="regionMode">Send SMS codes</label><select id="regionMode" name="regionMode">
                    <option value="allowByDefault"\(allowlist ? "" : HTML(" selected"))>Everywhere except the regions below</option>
                    <option value="allowlistOnly"\(allowlist ? HTML(" selected") : "")>Only to the regions below</option></select>
                    \(text("regions", "Regions (ISO 3166 codes, such as US, KR; comma-separated)", (allowlist ? project.phone.allowedRegions : project.phone.deniedRegions).joined(separator: ", ")))
                    """))
        }
        let states: [HTML] = ["DISABLED", "ENABLED", "MANDATORY"].map {
            "<option value=\"\($0)\"\($0 == project.mfa.state.rawValue ? HTML(" selected") : "")>\($0.capitalized)</option>"
        }
        sections.append(
            section(
                "mfa", "Multi-factor authentication",
                """
                <label for="state">State</label><select id="state" name="state">\(states)</select>
                <fieldset><legend>Second factors</legend>
                \(check("sms", "SMS", project.mfa.phoneEnabled))
                \(check("totp", "Authenticator app (TOTP)", project.mfa.totpAdjacentIntervals != nil))
                </fieldset>
                \(text("adjacentIntervals", "TOTP steps accepted either side of the current one (0 to 10)", String(project.mfa.totpAdjacentIntervals ?? MFASettings.defaultAdjacentIntervals), type: "number"))
                """))
        sections.append(
            section(
                "passkeys", "Passkeys",
                note: "<p class=\"muted\">Passkeys are on once a relying party id and at least one origin are set.</p>",
                """
                \(text("rpId", "Relying party id (a host name, such as example.com)", project.passkeys.rpID))
                \(area("expectedOrigins", "Expected origins, one per line (https://host[:port], http://localhost[:port], android:apk-key-hash:…)", project.passkeys.expectedOrigins))
                """))
        sections.append(
            """
            <h2 id="password-policy">Password policy</h2>
            <dl><dt>Shortest password</dt><dd id="min-length">\(project.passwordPolicy.minLength) characters</dd>
            <dt>Longest password</dt><dd>\(project.passwordPolicy.maxLength) characters</dd></dl>
            <p class="muted">Set in the config file (passwordPolicy); the config API does not change it.</p>
            """)
        if tenantID == nil {
            sections.append(
                section(
                    "privacy", "E-mail enumeration protection",
                    check(
                        "enableImprovedEmailPrivacy", "Answer alike whether an e-mail address has an account",
                        project.emailEnumerationProtection)))
            let triggers: [HTML] = BlockingFunctionSettings.events.map { event in
                text(event, "\(event) function URL", project.blockingFunctions.triggers[event] ?? "", type: "url")
            }
            sections.append(section("blocking", "Blocking functions", "\(triggers)"))
            sections.append(templates(visit, origin))
            let options: [HTML] = AuthEngine.emailTemplateNames.map { "<option value=\"\($0)\">\($0)</option>" }
            sections.append(
                section(
                    "test-email", "Send test e-mail",
                    note: "<p class=\"muted\">Through the server's e-mail sender, its subject marked [Test].</p>",
                    button: "Send test e-mail",
                    """
                    <label for="template">Message</label><select id="template" name="template">\(options)</select>
                    <label for="to">To</label><input id="to" name="to" type="email" value="\(visit.admin?.email ?? "")">
                    """))
        } else {
            sections.append(
                "<h2 id=\"project-settings\">Project settings</h2><p class=\"muted\">Authorized domains, the SMS region policy, e-mail enumeration protection, blocking functions and message templates are the project's, shared by its tenants: <a href=\"/console/settings\">the project's settings</a>.</p>")
        }
        let picker = try console.tenantPicker(visit, page: "/console/settings", label: "Show the settings of", selected: tenantID)
        return .page(
            status, title: tenantID.map { "Settings of tenant \($0)" } ?? "Settings",
            """
            \(message)
            \(picker)
            \(sections)
            """)
    }

    /// The form a section posts names it by `section`; headings use the hyphenated id.
    func sectionName(_ id: String) -> String {
        switch id {
        case "sign-in": "signIn"
        case "test-phones": "testPhones"
        case "sms-regions": "smsRegions"
        case "test-email": "testEmail"
        default: id
        }
    }


    /// Templates: each message as the project's templates render it (escaped: the HTML is shown as source), and the
    /// verification SMS.
    func templates(_ visit: ConsoleVisit, _ origin: RequestOrigin) -> HTML {
        let previews = engine.emailPreviews(recipient: visit.admin?.email ?? "user@example.com", origin: origin)
        let shown: [HTML] = previews.map { preview in
            """
            <details id="preview-\(preview.template)"><summary>\(preview.template): \(preview.subject)</summary>
            <dl><dt>Sender name</dt><dd>\(preview.senderName ?? "the server's (email.smtp.fromName)")</dd><dt>Subject</dt><dd>\(preview.subject)</dd></dl>
            <pre class="preview">\(preview.text)</pre>
            <details><summary>HTML source</summary><pre class="preview">\(preview.html)</pre></details></details>
            """
        }
        return """
            <h2 id="templates">E-mail and SMS templates</h2>
            <p class="muted">Set in the config file (email.templates, phone.smsTemplate); the config API does not change them. Each message below is rendered with a sample link that opens nothing.</p>
            \(shown)
            <h3>Verification SMS</h3><pre class="preview" id="sms-preview">\(engine.smsPreview(origin: origin))</pre>
            """
    }
}
