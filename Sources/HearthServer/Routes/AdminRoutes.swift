import HearthCore
import HearthEngine
import Hummingbird

/// Identity Toolkit handlers for admin callers (the Admin SDKs): wire fields in, engine call, wire fields out.
extension AuthRoutes {
    func adminCreate(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        // An ID token names the user already; a uid beside it contradicts it.
        if try wire.string("idToken") != nil, try wire.string("localId") != nil {
            throw AuthError(.unexpectedParameter, "User ID")
        }
        var request = AdminCreateRequest(
            localID: try wire.string("localId"), email: try wire.string("email"),
            password: try wire.string("password"), displayName: try wire.string("displayName"),
            photoURL: try wire.string("photoUrl"), phoneNumber: try wire.string("phoneNumber"),
            emailVerified: try wire.bool("emailVerified") ?? false, disabled: try wire.bool("disabled") ?? false)
        request.mfaEnrollments = try adminEnrollments(wire.objects("mfaInfo"))
        let user = try await engine.adminCreateUser(request, origin: origin)
        return .compact([
            "kind": "identitytoolkit#SignupNewUserResponse",
            "localId": .string(user.uid),
            "email": .text(user.email),
            "displayName": .text(user.displayName),
        ])
    }

    func adminLookup(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        // An admin may also look up by ID token, as end users do.
        if try wire.string("idToken") != nil { return try await lookup(wire, origin) }
        let users = try await engine.adminLookup(
            localIDs: try wire.stringArray("localId"), emails: try wire.stringArray("email"),
            phoneNumbers: try wire.stringArray("phoneNumber"),
            federatedUserIDs: try wire.objects("federatedUserId").compactMap { o in
                guard let provider = o["providerId"]?.stringValue, let raw = o["rawId"]?.stringValue else { return nil }
                return (provider, raw)
            }, origin: origin)
        // No `users` at all when nothing matched, as production answers (the Node Admin SDK relies on it).
        return .compact([
            "kind": "identitytoolkit#GetAccountInfoResponse",
            "users": users.isEmpty
                ? nil : .array(users.map { UserEncoding.userInfo($0, admin: true, emulator: origin.emulator) }),
        ])
    }

    func adminUpdate(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        if try wire.string("idToken") != nil && wire.fields["localId"] == nil { return try await update(wire, origin) }
        var request = AdminUpdateRequest(
            localID: try wire.string("localId"), email: try wire.string("email"),
            password: try wire.string("password"), displayName: try wire.string("displayName"),
            photoURL: try wire.string("photoUrl"), phoneNumber: try wire.string("phoneNumber"),
            emailVerified: try wire.bool("emailVerified"), disabled: try wire.bool("disableUser"),
            customAttributes: try wire.string("customAttributes"), validSince: try wire.int("validSince"),
            deleteAttributes: try deleteAttributes(wire), deleteProviders: try wire.stringArray("deleteProvider"))
        request.deletePasskeys = try wire.stringArray("deletePasskey")
        // `mfa` present: its enrollments replace the user's (none: all removed); absent: unchanged.
        if let mfa = try wire.message("mfa") {
            // Google's JSON mapping reads a null list as empty; the emulator's schema check refuses it.
            if origin.emulator, mfa.fields["enrollments"] == .null {
                throw AuthError(.invalidJSONPayload, "Invalid JSON payload received. /mfa/enrollments must be array")
            }
            request.mfaEnrollments = try adminEnrollments(mfa.objects("enrollments"))
        }
        if let link = try wire.message("linkProviderUserInfo") {
            guard let provider = try link.string("providerId"), !provider.isEmpty else {
                throw AuthError(.missingProviderID, "Provider ID of linkProviderUserInfo is missing.")
            }
            guard let raw = try link.string("rawId"), !raw.isEmpty else {
                throw AuthError(.missingRawID, "Raw ID of linkProviderUserInfo is missing.")
            }
            // Password and phone are the account's own fields, not links.
            guard provider != ProviderID.password, provider != ProviderID.phone else {
                throw AuthError(.invalidProviderID, "linkProviderUserInfo cannot link \(provider).")
            }
            request.linkProvider = ProviderUserInfo(
                providerID: provider, rawID: raw, federatedID: raw, email: try link.string("email"),
                displayName: try link.string("displayName"), photoURL: try link.string("photoUrl"))
        }
        let user = try await engine.adminUpdateUser(request, origin: origin)
        return UserEncoding.setAccountInfo(user)
    }

    func adminEnrollments(_ entries: [[String: JSONValue]]) throws(AuthError) -> [MFAEnrollment] {
        var entries = entries
        if engine.isEmulator {
            // The emulator keeps the first of several factors with one phone number and drops the others.
            var seen = Set<String>()
            entries = entries.filter { entry in
                guard let phone = entry["phoneInfo"]?.stringValue else { return true }
                return seen.insert(phone).inserted
            }
        }
        return try engine.adminEnrollments(entries)
    }

    func adminDelete(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        // Admins name the user (MISSING_LOCAL_ID otherwise), even when the body also carries an ID token.
        try await engine.adminDeleteUser(localID: try wire.string("localId"), origin: origin)
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }

    func adminBatchGet(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let page = try await engine.adminListUsers(
            maxResults: try wire.int("maxResults").map { Int(clamping: $0) },
            pageToken: try wire.string("nextPageToken"),
            origin: origin)
        return .compact([
            "kind": "identitytoolkit#DownloadAccountResponse",
            "users": .array(page.users.map { UserEncoding.userInfo($0, admin: true, emulator: origin.emulator) }),
            "nextPageToken": .text(page.nextPageToken),
        ])
    }

    func adminBatchCreate(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        var users: [ImportedUser] = []
        for entry in try wire.objects("users") { users.append(try ImportedUser(json: entry)) }
        let errors = try await engine.adminImportUsers(
            UserImportRequest(
                users: users, hash: try passwordHashImport(wire), sanityCheck: try wire.bool("sanityCheck") ?? false,
                allowOverwrite: try wire.bool("allowOverwrite") ?? false),
            origin: origin)
        return [
            "kind": "identitytoolkit#UploadAccountResponse",
            "error": .array(errors.map { ["index": .number(Double($0.index)), "message": .string($0.message)] }),
        ]
    }

    /// The batch-wide hash settings of `batchCreate`, nil when no `hashAlgorithm` is given.
    func passwordHashImport(_ wire: WireRequest) throws(AuthError) -> PasswordHashImport? {
        guard let name = try wire.string("hashAlgorithm") else { return nil }
        guard let algorithm = PasswordHashImport.Algorithm(rawValue: name) else {
            throw AuthError(.invalidHashAlgorithm, name)
        }
        var order: SaltOrder?
        if let text = try wire.string("passwordHashOrder"), text != "UNSPECIFIED_ORDER" {
            guard let o = PasswordHashImport.order(named: text) else {
                throw AuthError(.invalidArgument, "Invalid passwordHashOrder: \(text)")
            }
            order = o
        }
        func int(_ name: String) throws(AuthError) -> Int { Int(clamping: try wire.int(name) ?? 0) }
        return PasswordHashImport(
            algorithm: algorithm, signerKey: try wire.bytes("signerKey") ?? [],
            saltSeparator: try wire.bytes("saltSeparator") ?? [], rounds: try int("rounds"),
            memoryCost: try int("memoryCost"), cpuMemCost: try int("cpuMemCost"), blockSize: try int("blockSize"),
            parallelization: try int("parallelization"), derivedKeyLength: try int("dkLen"), order: order)
    }

    func adminBatchDelete(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let errors = try await engine.adminBatchDelete(
            localIDs: try wire.stringArray("localIds"), force: try wire.bool("force") ?? false, origin: origin)
        return .compact([
            "errors": errors.isEmpty
                ? nil
                : .array(
                    errors.map {
                        [
                            "index": .number(Double($0.index)), "localId": .string($0.localID),
                            "message": .string($0.message),
                        ]
                    })
        ])
    }

    func adminQuery(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        var expressions: [(email: String?, uid: String?, phoneNumber: String?)] = []
        for e in try wire.objects("expression") {
            expressions.append((e["email"]?.stringValue, e["userId"]?.stringValue, e["phoneNumber"]?.stringValue))
        }
        let result = try await engine.adminQuery(
            limit: try wire.int("limit").map { Int(clamping: $0) },
            offset: try wire.int("offset").map { Int(clamping: $0) },
            sortBy: try wire.string("sortBy"), order: try wire.string("order"), expressions: expressions,
            returnUserInfo: try wire.bool("returnUserInfo") ?? true, origin: origin)
        return .compact([
            "recordsCount": .string(String(result.count)),
            "userInfo": result.users.map { users in
                .array(users.map { UserEncoding.userInfo($0, admin: true, emulator: origin.emulator) })
            },
        ])
    }

    func createSessionCookie(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let cookie = try await engine.createSessionCookie(
            idToken: try wire.string("idToken"), validDuration: try wire.int("validDuration").map { Int(clamping: $0) },
            origin: origin)
        return ["sessionCookie": .string(cookie)]
    }

    func signInWithCustomToken(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.signInWithCustomToken(try wire.string("token"), origin: origin)
        return UserEncoding.withTokens(
            ["kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": .bool(result.isNewUser)], result.tokens)
    }
}

/// Project configuration and development messages, for admins.
extension AuthRoutes {
    func adminGetConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        origin.project.settingsView(emulator: engine.isEmulator)
    }

    /// `PATCH /v2/projects/{p}/config?updateMask=…`: the run-time settings `ProjectSettingsUpdate` lists.
    func adminUpdateConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        var patch = wire.body
        let mask = try wire.string("updateMask").map { $0.split(separator: ",").map { String($0) } }
        patch["updateMask"] = nil
        let config = try await engine.updateProjectSettings(
            projectID: origin.project.projectID, patch: patch, mask: mask)
        return config.settingsView(emulator: engine.isEmulator)
    }

    /// `GET /v2/projects/{p}[/tenants/{t}]/passkeyConfig`.
    func adminGetPasskeyConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        passkeyConfig(origin.project.passkeys, of: origin.project)
    }

    /// `PATCH /v2/projects/{p}[/tenants/{t}]/passkeyConfig?updateMask=rpId,expectedOrigins`.
    func adminUpdatePasskeyConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        var patch = wire.body
        let mask = try wire.string("updateMask").map { $0.split(separator: ",").map { String($0) } }
        patch["updateMask"] = nil
        let settings = try await engine.updatePasskeySettings(scope: origin.project, patch: patch, mask: mask)
        return passkeyConfig(settings, of: origin.project)
    }

    func passkeyConfig(_ settings: PasskeySettings, of project: ProjectConfig) -> JSONValue {
        let scope = project.tenantID.map { "projects/\(project.firebaseProjectID)/tenants/\($0)" }
        return [
            "name": .string("\(scope ?? "projects/\(project.firebaseProjectID)")/passkeyConfig"),
            "rpId": .string(settings.rpID),
            "expectedOrigins": .array(settings.expectedOrigins.map(JSONValue.string)),
        ]
    }

    /// v3 `setProjectConfig`: of its fields only `authorizedDomains` is a run-time setting; the others (sign-in
    /// methods, templates, `idpConfig`) live in the config file and are refused, as a v2 config update refuses them.
    func adminSetProjectConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let fileOnly = [
            "allowPasswordUser", "enableAnonymousUser", "changeEmailTemplate", "legacyResetPasswordTemplate",
            "resetPasswordTemplate", "verifyEmailTemplate", "idpConfig", "useEmailSending",
        ]
        if let field = fileOnly.first(where: { (wire.body[$0] ?? .null) != .null }) {
            throw AuthError(.invalidConfig, "Hearth cannot change \(field) at run time; set it in the config file.")
        }
        if let domains = wire.body["authorizedDomains"], domains != .null {
            _ = try await engine.updateProjectSettings(
                projectID: origin.project.projectID, patch: ["authorizedDomains": domains], mask: ["authorizedDomains"])
        }
        return ["kind": "identitytoolkit#SetProjectConfigResponse", "projectId": .string(origin.project.projectNumber)]
    }

    /// v3 `signOutUser`: ends every session of `localId` now, as the Admin SDKs' `revokeRefreshTokens` does.
    func adminSignOutUser(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let user = try await engine.signOutUser(localID: try wire.string("localId"), origin: origin)
        return ["kind": "identitytoolkit#SignOutUserResponse", "localId": .string(user.uid)]
    }

    /// `v2/defaultSupportedIdps`: the built-in providers a `defaultSupportedIdpConfigs` entry may name.
    func defaultSupportedIdps(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        [
            "defaultSupportedIdps": .array(
                IdentityProviderConfigs.builtIn.map { ["idpId": .string($0), "description": .string($0)] })
        ]
    }

    func adminSMSOutbox(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        try await EmulatorRoutes.verificationCodes(engine, projectID: origin.project.projectID, unusedOnly: false)
    }
}

/// The Identity Platform provider-config API (`defaultSupportedIdpConfigs`, `oauthIdpConfigs`), for admins.
extension AuthRoutes {
    func registerIdentityProviderConfigs(
        _ kind: IdentityProviderConfigs.Kind, prefix: String, on router: HearthRouter
    ) {
        // The project's own provider configs, and each tenant's.
        for scope in ["\(prefix)/v2/projects/{project}", "\(prefix)/v2/projects/{project}/tenants/{tenant}"] {
            let collection = "\(scope)/\(kind.collection)"
            let createParameter = kind == .builtIn ? "idpId" : "oauthIdpConfigId"
            router.get(RouterPath(collection)) { request, context in
                try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in
                    [kind.collection: .array(engine.identityProviderConfigs(kind: kind, origin: origin))]
                }
            }
            router.post(RouterPath(collection)) { request, context in
                try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                    guard let id = try wire.string(createParameter) else {
                        throw AuthError(.invalidProviderID, "\(createParameter) is required")
                    }
                    var config = wire.body
                    config[createParameter] = nil
                    return try await engine.setIdentityProviderConfig(
                        id, kind: kind, config: config, create: true, origin: origin) ?? [:]
                }
            }
            let item = RouterPath("\(collection)/{idp}")
            router.get(item) { request, context in
                let id = try context.parameters.require("idp")
                return try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in
                    try engine.identityProviderConfig(id, kind: kind, origin: origin)
                }
            }
            router.patch(item) { request, context in
                let id = try context.parameters.require("idp")
                return try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                    var config = wire.body
                    let mask = try wire.string("updateMask").map { $0.split(separator: ",").map(String.init) }
                    config["updateMask"] = nil
                    return try await engine.setIdentityProviderConfig(
                        id, kind: kind, config: config, create: false, mask: mask, origin: origin) ?? [:]
                }
            }
            router.delete(item) { request, context in
                let id = try context.parameters.require("idp")
                return try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in
                    _ = try await engine.setIdentityProviderConfig(
                        id, kind: kind, config: nil, create: false, origin: origin)
                    return [:]
                }
            }
        }
    }
}

/// SAML provider configs (`inboundSamlConfigs`), for admins: stored and served, no SAML sign-in.
extension AuthRoutes {
    func registerSAMLProviderConfigs(prefix: String, on router: HearthRouter) {
        for scope in ["\(prefix)/v2/projects/{project}", "\(prefix)/v2/projects/{project}/tenants/{tenant}"] {
            let collection = RouterPath("\(scope)/inboundSamlConfigs")
            router.get(collection) { request, context in
                try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                    try engine.samlProviderConfigs(
                        pageSize: try wire.int("pageSize").map(Int.init), pageToken: try wire.string("pageToken"),
                        origin: origin)
                }
            }
            router.post(collection) { request, context in
                try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                    guard let id = try wire.string("inboundSamlConfigId") else {
                        throw AuthError(.invalidProviderID, "inboundSamlConfigId is required")
                    }
                    return try await engine.setSAMLProviderConfig(id, config: wire.body, create: true, origin: origin)
                        ?? [:]
                }
            }
            let item = RouterPath("\(scope)/inboundSamlConfigs/{idp}")
            router.get(item) { request, context in
                let id = try context.parameters.require("idp")
                return try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in
                    try engine.samlProviderConfig(id, origin: origin)
                }
            }
            router.patch(item) { request, context in
                let id = try context.parameters.require("idp")
                return try await respond(request, context, hasProject: true, nil, configuresTenant: true) { wire, origin in
                    let mask = try wire.string("updateMask").map { $0.split(separator: ",").map(String.init) }
                    return try await engine.setSAMLProviderConfig(
                        id, config: wire.body, create: false, mask: mask, origin: origin) ?? [:]
                }
            }
            router.delete(item) { request, context in
                let id = try context.parameters.require("idp")
                return try await respond(request, context, hasProject: true, nil, configuresTenant: true) { _, origin in
                    _ = try await engine.setSAMLProviderConfig(id, config: nil, create: false, origin: origin)
                    return [:]
                }
            }
        }
    }
}
