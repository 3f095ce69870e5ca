import Foundation
import HearthCore
import HearthEngine
import HearthStore
import Hummingbird

/// Users: the search ("Search users", filters, keyset pages of 50), creating a user, and a user's page with its
/// actions. Every change is the admin API's engine use case, run as the signed-in admin (`Console.asAdmin`).
struct ConsoleUserPages: Sendable {
    let console: Console
    var engine: AuthEngine { console.engine }
    static let pageSize = 50

    func hidden(_ name: String, _ value: String) -> HTML { "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">" }

    static func date(_ date: Date?) -> String {
        guard let date else { return "—" }
        return ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withInternetDateTime])
    }

    static func percentEncoded(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    /// The project or the picked tenant. As in the admin API, a tenant with `disableAuth` refuses every call on its
    /// users, its admins' too (PROJECT_DISABLED).
    func scope(_ visit: ConsoleVisit) throws -> RequestOrigin {
        let origin = try console.scope(visit)
        if origin.project.tenant?.disableAuth == true { throw AuthError(.projectDisabled) }
        return origin
    }

    /// A user's page, in the tenant the visit is scoped to (`?tenant=T`).
    static func userPath(_ uid: String, tenant: String) -> String {
        "/console/users/\(percentEncoded(uid))" + (tenant.isEmpty ? "" : "?tenant=\(percentEncoded(tenant))")
    }

    /// After a change: the page again with what was done.
    static func done(_ path: String, _ what: String) -> Console.Answer {
        .redirect("\(path)\(path.contains("?") ? "&" : "?")done=\(what)")
    }

    // MARK: Search

    func search(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let query = visit.field("q")
        let tenant = visit.field("tenant")
        let provider = visit.field("provider")
        let status = visit.field("status")
        let anonymous = visit.field("anonymous") == "on"
        let unverified = visit.field("unverified") == "on"
        let filters = UserSearch(
            field: .uid, prefix: "", provider: provider.isEmpty ? nil : provider,
            disabled: status == "disabled" ? true : status == "enabled" ? false : nil, anonymousOnly: anonymous,
            unverifiedOnly: unverified)
        let (page, field) = try await engine.searchUsers(
            query: query, field: UserSearch.Field(rawValue: visit.field("field")), after: visit.field("after"),
            filters: filters, limit: Self.pageSize, origin: try scope(visit))
        let users = page.users
        let tenants = try console.tenants(visit)
        let providers = [
            "", ProviderID.password, ProviderID.phone, ProviderID.google, ProviderID.apple, ProviderID.facebook,
            ProviderID.github,
        ]
        let providerOptions: [HTML] = providers.map { id in
            "<option value=\"\(id)\"\(id == provider ? HTML(" selected") : "")>\(id.isEmpty ? "Any provider" : id)</option>"
        }
        let statusOptions: [HTML] = [("", "Any status"), ("enabled", "Enabled"), ("disabled", "Disabled")].map { value, name in
            "<option value=\"\(value)\"\(value == status ? HTML(" selected") : "")>\(name)</option>"
        }
        let rows: [HTML] = users.map { user in
            let providers = user.allProviderInfo.map(\.providerID).joined(separator: ", ")
            return """
                <tr><td><a href="\(Self.userPath(user.uid, tenant: tenant))">\(user.uid)</a></td><td>\(user.email ?? "—")</td>
                <td>\(user.phoneNumber ?? "—")</td><td>\(providers.isEmpty ? (user.isAnonymous ? "anonymous" : "—") : providers)</td>
                <td>\(user.disabled ? "Disabled" : "Enabled")</td><td>\(Self.date(user.createdAt))</td></tr>
                """
        }
        var next: HTML = ""
        let lastShown: String? = users.last.flatMap { last in
            switch field {
            case .email: last.email
            case .phoneNumber: last.phoneNumber
            case .uid: last.uid
            }
        }
        // A full page continues after its last user; a filtered page whose walk hit its bound, after where it stopped.
        if let after = users.count == Self.pageSize ? lastShown : page.resumeAfter {
            var parameters = [("q", query), ("field", field.rawValue), ("after", after), ("provider", provider), ("status", status)]
            if !tenant.isEmpty { parameters.append(("tenant", tenant)) }
            if anonymous { parameters.append(("anonymous", "on")) }
            if unverified { parameters.append(("unverified", "on")) }
            let link = parameters.map { "\($0)=\(Self.percentEncoded($1))" }.joined(separator: "&")
            next =
                users.count == Self.pageSize
                ? "<p><a id=\"next-page\" href=\"/console/users?\(link)\">Next 50 users</a></p>"
                : "<p>Looked at \(AuthEngine.consoleSearchWalk) users in this range and stopped. <a id=\"next-page\" href=\"/console/users?\(link)\">Search further</a></p>"
        }
        let fieldName =
            switch field {
            case .email: "e-mail addresses"
            case .phoneNumber: "phone numbers"
            case .uid: "uids"
            }
        let tenantPicker: HTML =
            tenants.isEmpty
            ? "" : "<label for=\"tenant\">Users of</label><select id=\"tenant\" name=\"tenant\">\(Console.tenantOptions(tenants, selected: tenant.isEmpty ? nil : tenant))</select>"
        let createLink: HTML = visit.admin?.role == .admin ? "<p><a href=\"/console/users/new\(tenant.isEmpty ? "" : "?tenant=\(Self.percentEncoded(tenant))")\" id=\"create-user\">Create user</a></p>" : ""
        return .page(
            .ok, title: "Users",
            """
            <form method="get" action="/console/users" role="search">
            <label for="q">Search users</label>
            <input id="q" name="q" type="search" value="\(query)" placeholder="e-mail, +phone or uid prefix">
            \(tenantPicker)
            <fieldset><legend>Filters</legend>
            <label for="provider">Provider</label><select id="provider" name="provider">\(providerOptions)</select>
            <label for="status">Status</label><select id="status" name="status">\(statusOptions)</select>
            <label class="check" for="anonymous"><input id="anonymous" name="anonymous" type="checkbox"\(anonymous ? HTML(" checked") : "")> Anonymous only</label>
            <label class="check" for="unverified"><input id="unverified" name="unverified" type="checkbox"\(unverified ? HTML(" checked") : "")> Unverified e-mail only</label>
            </fieldset>
            <button type="submit" id="search">Search</button></form>
            \(createLink)
            <p class="muted" id="result-summary">\(users.count == 0 ? "No users found" : users.count == 1 ? "1 user" : "\(users.count) users")\(query.isEmpty ? "" : " whose \(fieldName) start with “\(query)”")\(visit.field("after").isEmpty ? "" : " (continued)").</p>
            <div class="table"><table id="users"><caption class="muted">Users, \(fieldName) in order</caption>
            <thead><tr><th scope="col">uid</th><th scope="col">E-mail</th><th scope="col">Phone</th><th scope="col">Providers</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
            <tbody>\(rows)</tbody></table></div>
            \(next)
            """)
    }

    // MARK: Create

    func newUser(_ visit: ConsoleVisit) async throws -> Console.Answer {
        createForm(visit, message: nil, status: .ok)
    }

    func createForm(_ visit: ConsoleVisit, message: String?, status: HTTPResponse.Status) -> Console.Answer {
        let error: HTML = message.map { "<p class=\"error\" role=\"alert\" id=\"error\">\($0)</p>" } ?? ""
        return .page(
            status, title: "Create user",
            """
            \(error)
            <form method="post" action="/console/users/new">\(hidden("csrf", visit.csrf))\(hidden("tenant", visit.field("tenant")))
            <label for="email">E-mail</label><input id="email" name="email" type="email" value="\(visit.field("email"))">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password">
            <label for="phoneNumber">Phone number (E.164)</label><input id="phoneNumber" name="phoneNumber" type="text" value="\(visit.field("phoneNumber"))">
            <label for="displayName">Display name</label><input id="displayName" name="displayName" type="text" value="\(visit.field("displayName"))">
            <button type="submit" id="submit">Create user</button></form>
            """)
    }

    func create(_ visit: ConsoleVisit) async throws -> Console.Answer {
        func value(_ name: String) -> String? { visit.field(name).isEmpty ? nil : visit.field(name) }
        do {
            let user = try await console.asAdmin(visit) {
                try await engine.adminCreateUser(
                    AdminCreateRequest(
                        email: value("email"), password: value("password"), displayName: value("displayName"),
                        phoneNumber: value("phoneNumber")), origin: try scope(visit))
            }
            return Self.done(Self.userPath(user.uid, tenant: visit.field("tenant")), "created")
        } catch let error as AuthError where error.code != .permissionDenied {
            return createForm(visit, message: error.message, status: HTTPResponse.Status(code: error.code.httpStatus))
        }
    }

    // MARK: A user

    static let notices = [
        "created": "User created.", "disabled": "Account disabled; its sessions have ended.",
        "enabled": "Account enabled.", "claims": "Custom claims saved.", "revoked": "All sessions revoked.", "session": "Session revoked.",
        "unlinked": "Provider unlinked.", "factor": "Second factor removed.", "reset": "Password reset e-mail sent.",
        "verification": "Verification e-mail sent.", "passkey": "Passkey removed.",
    ]

    func user(_ visit: ConsoleVisit, uid: String) async throws -> UserRecord {
        guard let user = try await engine.adminLookup(localIDs: [uid], emails: [], phoneNumbers: [], origin: try scope(visit)).first
        else { throw AuthError(.userNotFound) }
        return user
    }

    func show(_ visit: ConsoleVisit, uid: String) async throws -> Console.Answer {
        let notice = Self.notices[visit.field("done")].map { HTML("<p class=\"notice\" role=\"status\" id=\"notice\">\($0)</p>") } ?? ""
        let user = try await user(visit, uid: uid)
        return render(visit, user, try await activity(visit, user), message: notice, status: .ok)
    }

    /// A user's live sessions and latest history (audit and sign-in events), for their page.
    struct Activity {
        var sessions: [SessionSummary]
        var history: [AuditEvent]
    }

    func activity(_ visit: ConsoleVisit, _ user: UserRecord) async throws -> Activity {
        let origin = try scope(visit)
        return Activity(
            sessions: try await engine.sessions(of: user.uid, origin: origin),
            history: try await engine.auditEvents(uid: user.uid, pageSize: 20, origin: origin).events)
    }

    func render(
        _ visit: ConsoleVisit, _ user: UserRecord, _ activity: Activity, message: HTML, status: HTTPResponse.Status
    ) -> Console.Answer {
        let canChange = visit.admin?.role == .admin
        let path = Self.userPath(user.uid, tenant: visit.field("tenant"))
        func form(_ action: String, _ fields: HTML, button: String, danger: Bool = false, id: String) -> HTML {
            guard canChange else { return "" }
            return """
                <form method="post" action="\(path)">\(hidden("csrf", visit.csrf))\(hidden("action", action))\(fields)
                <button type="submit" id="\(id)"\(danger ? HTML(" class=\"danger\"") : "")>\(button)</button></form>
                """
        }
        let codeField: (String) -> HTML = { id in
            "<label for=\"\(id)\">Your authenticator code</label><input id=\"\(id)\" name=\"code\" type=\"text\" inputmode=\"numeric\" autocomplete=\"off\" required>"
        }
        let providers: [HTML] = user.providers.map { link in
            """
            <tr><td>\(link.providerID)</td><td>\(link.rawID)</td><td>\(link.email ?? "—")</td>
            <td>\(form("unlink", hidden("providerId", link.providerID), button: "Unlink", id: "unlink-\(link.providerID)"))</td></tr>
            """
        }
        let factors: [HTML] = user.mfaEnrollments.map { factor in
            """
            <tr><td>\(factor.factorID)</td><td>\(factor.displayName ?? "—")</td><td>\(factor.phoneNumber ?? "—")</td>
            <td>\(Self.date(factor.enrolledAt))</td><td>\(form("removeFactor", hidden("enrollmentId", factor.id), button: "Remove", id: "remove-\(factor.id)"))</td></tr>
            """
        }
        // A passkey is named in forms by its credential id in standard base64, as the admin API's `deletePasskey` takes it.
        let passkeys: [HTML] = user.passkeys.map { passkey in
            let id = Base64.encode(passkey.credentialID)
            return """
                <tr><td>\(passkey.name)</td><td>\(Self.date(passkey.createdAt))</td><td>\(Self.date(passkey.lastUsedAt))</td>
                <td>\(passkey.backedUp ? "Yes" : "No")</td>
                <td>\(form("removePasskey", hidden("credentialId", id), button: "Remove", danger: true, id: "remove-passkey-\(Base64URL.encode(passkey.credentialID))"))</td></tr>
                """
        }
        let sessions: [HTML] = activity.sessions.map { session in
            """
            <tr><td><code>\(String(session.sessionID.prefix(12)))</code></td><td>\(session.signInProvider)</td>
            <td>\(Self.date(session.createdAt))</td><td>\(Self.date(session.lastUsedAt))</td><td>\(session.ipPrefix ?? "—")</td>
            <td>\(session.userAgent ?? "—")</td>
            <td>\(form("revokeSession", hidden("sessionId", session.sessionID), button: "Revoke", id: "revoke-session-\(session.sessionID)"))</td></tr>
            """
        }
        let history: [HTML] = activity.history.map(ConsoleAuditPages.row)
        let claims = user.customClaims ?? "{}"
        let claimsEditor: HTML =
            canChange
            ? """
            <form method="post" action="\(path)">\(hidden("csrf", visit.csrf))\(hidden("action", "claims"))
            <label for="claims">Custom claims (JSON object, at most 1,000 characters)</label>
            <textarea id="claims" name="claims" spellcheck="false">\(visit.field("claims").isEmpty ? claims : visit.field("claims"))</textarea>
            <button type="submit" id="save-claims">Save claims</button></form>
            """ : "<pre id=\"claims\">\(claims)</pre>"
        let title = user.email ?? user.phoneNumber ?? user.uid
        return .page(
            status, title: title,
            """
            \(message)
            <h2>Profile</h2>
            <dl id="profile">
            <dt>uid</dt><dd id="uid">\(user.uid)</dd>
            <dt>E-mail</dt><dd>\(user.email ?? "—")\(user.email == nil ? "" : user.emailVerified ? " (verified)" : " (not verified)")</dd>
            <dt>Phone</dt><dd>\(user.phoneNumber ?? "—")</dd>
            <dt>Display name</dt><dd>\(user.displayName ?? "—")</dd>
            <dt>Photo URL</dt><dd>\(user.photoURL ?? "—")</dd>
            <dt>Status</dt><dd id="status">\(user.disabled ? "Disabled" : "Enabled")</dd>
            </dl>
            <h2>Metadata</h2>
            <dl><dt>Created</dt><dd>\(Self.date(user.createdAt))</dd><dt>Last sign-in</dt><dd>\(Self.date(user.lastLoginAt))</dd>
            <dt>Last refresh</dt><dd>\(Self.date(user.lastRefreshAt))</dd><dt>Password changed</dt><dd>\(Self.date(user.passwordUpdatedAt))</dd>
            <dt>Sessions valid since</dt><dd>\(Self.date(user.validSince))</dd></dl>
            <h2>Providers</h2>
            \(providers.isEmpty ? HTML("<p class=\"muted\">No linked providers.</p>") : "<div class=\"table\"><table><thead><tr><th scope=\"col\">Provider</th><th scope=\"col\">Id</th><th scope=\"col\">E-mail</th><th scope=\"col\">Action</th></tr></thead><tbody>\(providers)</tbody></table></div>")
            <h2>Custom claims</h2>
            \(claimsEditor)
            <h2>Second factors</h2>
            \(factors.isEmpty ? HTML("<p class=\"muted\">No second factors.</p>") : "<div class=\"table\"><table><thead><tr><th scope=\"col\">Factor</th><th scope=\"col\">Name</th><th scope=\"col\">Phone</th><th scope=\"col\">Enrolled</th><th scope=\"col\">Action</th></tr></thead><tbody>\(factors)</tbody></table></div>")
            <h2>Passkeys</h2>
            \(passkeys.isEmpty ? HTML("<p class=\"muted\">No passkeys.</p>") : "<div class=\"table\"><table id=\"passkeys\"><thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Created</th><th scope=\"col\">Last used</th><th scope=\"col\">Backed up</th><th scope=\"col\">Action</th></tr></thead><tbody>\(passkeys)</tbody></table></div>")
            <h2>Sessions</h2>
            \(sessions.isEmpty ? HTML("<p class=\"muted\">No live sessions.</p>") : "<div class=\"table\"><table id=\"sessions\"><thead><tr><th scope=\"col\">Session</th><th scope=\"col\">Provider</th><th scope=\"col\">Created</th><th scope=\"col\">Last used</th><th scope=\"col\">Address</th><th scope=\"col\">User agent</th><th scope=\"col\">Action</th></tr></thead><tbody>\(sessions)</tbody></table></div>")
            <h2>History</h2>
            \(history.isEmpty ? HTML("<p class=\"muted\">Nothing recorded yet.</p>") : "<div class=\"table\">\(ConsoleAuditPages.table(history, id: "history"))</div>")
            <p><a href="/console/audit?uid=\(Self.percentEncoded(user.uid))\(visit.field("tenant").isEmpty ? "" : "&tenant=\(Self.percentEncoded(visit.field("tenant")))")">All of this user's events in the audit log</a></p>
            <h2>Actions</h2>
            <div class="actions">
            \(user.disabled ? form("enable", "", button: "Enable account", id: "enable") : form("disable", "", button: "Disable account", danger: true, id: "disable"))
            \(user.email == nil ? "" : form("sendReset", "", button: "Send password reset", id: "send-reset"))
            \(user.email == nil || user.emailVerified ? "" : form("sendVerification", "", button: "Send verification e-mail", id: "send-verification"))
            </div>
            \(canChange ? HTML("<h2>Revoke all sessions</h2>") : "")
            \(form("revoke", codeField("revoke-code"), button: "Revoke all sessions", danger: true, id: "revoke"))
            \(canChange ? HTML("<h2>Delete account</h2><p>Type the uid <code>\(user.uid)</code> to confirm.</p>") : "")
            \(form("delete", "<label for=\"confirm-uid\">uid to delete</label><input id=\"confirm-uid\" name=\"confirm\" type=\"text\" autocomplete=\"off\" required>" + codeField("delete-code"), button: "Delete account", danger: true, id: "delete"))
            """)
    }

    func act(_ visit: ConsoleVisit, uid: String) async throws -> Console.Answer {
        let origin = try scope(visit)
        var current = try await user(visit, uid: uid)
        let path = Self.userPath(uid, tenant: visit.field("tenant"))
        func update(_ request: AdminUpdateRequest) async throws {
            current = try await console.asAdmin(visit) { try await engine.adminUpdateUser(request, origin: origin) }
        }
        do {
            switch visit.field("action") {
            case "disable":
                try await update(AdminUpdateRequest(localID: uid, disabled: true))
                return Self.done(path, "disabled")
            case "enable":
                try await update(AdminUpdateRequest(localID: uid, disabled: false))
                return Self.done(path, "enabled")
            case "claims":
                try await update(AdminUpdateRequest(localID: uid, customAttributes: visit.field("claims")))
                return Self.done(path, "claims")
            case "unlink":
                try await update(AdminUpdateRequest(localID: uid, deleteProviders: [visit.field("providerId")]))
                return Self.done(path, "unlinked")
            case "removeFactor":
                var request = AdminUpdateRequest(localID: uid)
                request.mfaEnrollments = current.mfaEnrollments.filter { $0.id != visit.field("enrollmentId") }
                try await update(request)
                return Self.done(path, "factor")
            case "removePasskey":
                var request = AdminUpdateRequest(localID: uid)
                request.deletePasskeys = [visit.field("credentialId")]
                try await update(request)
                return Self.done(path, "passkey")
            case "sendReset", "sendVerification":
                let reset = visit.field("action") == "sendReset"
                _ = try await console.asAdmin(visit) {
                    try await engine.sendEmailAction(
                        EmailActionRequest(kind: reset ? "PASSWORD_RESET" : "VERIFY_EMAIL", email: current.email),
                        origin: origin)
                }
                return Self.done(path, reset ? "reset" : "verification")
            case "revokeSession":
                try await console.asAdmin(visit) {
                    try await engine.endSession(visit.field("sessionId"), of: uid, origin: origin)
                }
                return Self.done(path, "session")
            case "revoke":
                try await confirmCode(visit)
                _ = try await console.asAdmin(visit) { try await engine.signOutUser(localID: uid, origin: origin) }
                return Self.done(path, "revoked")
            case "delete":
                guard visit.field("confirm") == uid else {
                    throw AuthError(.invalidArgument, "Type the uid exactly to delete the account.")
                }
                try await confirmCode(visit)
                try await console.asAdmin(visit) { try await engine.adminDeleteUser(localID: uid, origin: origin) }
                return .redirect("/console/users\(visit.field("tenant").isEmpty ? "" : "?tenant=\(Self.percentEncoded(visit.field("tenant")))")")
            default:
                throw AuthError(.invalidArgument, "Unknown action.")
            }
        } catch let error as AuthError {
            let message: HTML = "<p class=\"error\" role=\"alert\" id=\"error\">\(error.message)</p>"
            let status =
                error.code == .tooManyAttemptsTryLater
                ? HTTPResponse.Status.tooManyRequests : HTTPResponse.Status(code: error.code.httpStatus)
            return render(visit, current, try await activity(visit, current), message: message, status: status)
        }
    }

    /// Sensitive changes (revoking every session, deleting a user) ask for the admin's code again.
    func confirmCode(_ visit: ConsoleVisit) async throws {
        guard let admin = visit.admin, admin.role == .admin else { throw AuthError(.permissionDenied) }
        try await engine.confirmConsoleCode(email: admin.email, code: visit.field("code"))
    }
}
