import HearthCore
import HearthEngine
import NIOCore

/// Identity Toolkit `accounts:*` handlers: wire fields in, engine call, wire fields out.
extension AuthRoutes {
    func signUp(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        // Only admins choose a uid.
        if try wire.string("localId") != nil { throw AuthError(.unexpectedParameter, "User ID") }
        let result = try await engine.signUp(
            SignUpRequest(
                email: try wire.string("email"), password: try wire.string("password"),
                displayName: try wire.string("displayName"), idToken: try wire.string("idToken"),
                // The emulator's tests create users with factors (new ids each, as it makes them); see SignUpRequest.
                mfaEnrollments: origin.emulator
                    ? try adminEnrollments(wire.objects("mfaInfo").map { $0.filter { $0.key != "mfaEnrollmentId" } })
                    : []),
            origin: origin)
        let u = result.user
        return UserEncoding.withTokens(
            .compact([
                "kind": "identitytoolkit#SignupNewUserResponse",
                "localId": .string(u.uid),
                "email": .text(u.email),
                "displayName": .text(u.displayName),
            ]), result.tokens)
    }

    func signInWithPassword(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.signInWithPassword(
            PasswordSignInRequest(email: try wire.string("email"), password: try wire.string("password")),
            origin: origin)
        let u = result.user
        return UserEncoding.withSession(
            .compact([
                "kind": "identitytoolkit#VerifyPasswordResponse",
                "localId": .string(u.uid),
                "email": .text(u.email),
                "displayName": .string(u.displayName ?? ""),
                "profilePicture": .text(u.photoURL),
                "registered": .bool(true),
            ]), result.tokens, result.challenge)
    }

    func lookup(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let user = try await engine.lookup(idToken: try wire.string("idToken"), origin: origin)
        return LookupAnswers.answer(user, emulator: origin.emulator)
    }

    /// An end user's lookup, the most frequent call: the same answer as `lookup`, encoded once per user version.
    func lookupBody(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> ByteBuffer {
        let user = try await engine.lookup(idToken: try wire.string("idToken"), origin: origin)
        return lookupAnswers.body(for: user, emulator: origin.emulator)
    }

    func update(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        if let code = try wire.string("oobCode") {
            let (user, kind) = try await engine.applyEmailAction(code: code, origin: origin)
            guard kind == .verifyAndChangeEmail, case .object(var answer) = UserEncoding.setAccountInfo(user) else {
                return UserEncoding.setAccountInfo(user)
            }
            // Firebase names the address the account moved to.
            answer["newEmail"] = .text(user.email)
            return .object(answer)
        }
        let attributes = try deleteAttributes(wire)
        var request = UpdateAccountRequest(
            idToken: try wire.string("idToken"), email: try wire.string("email"),
            password: try wire.string("password"),
            displayName: try wire.string("displayName"), photoURL: try wire.string("photoUrl"),
            deleteAttributes: attributes, deleteProviders: try wire.stringArray("deleteProvider"))
        // Any int64 (its value is the server's to choose); another type is Google's type error, as for admins.
        request.endsSessions = try wire.int("validSince") != nil
        request.deletePasskeys = try wire.stringArray("deletePasskey")
        let result = try await engine.updateAccount(request, origin: origin)
        let u = result.user
        return UserEncoding.withTokens(UserEncoding.setAccountInfo(u), result.tokens)
    }

    /// `deleteAttribute`: names of Google's UserAttributeName enum.
    func deleteAttributes(_ wire: WireRequest) throws(AuthError) -> [UpdateAccountRequest.Attribute] {
        var attributes: [UpdateAccountRequest.Attribute] = []
        for name in try wire.stringArray("deleteAttribute") {
            guard let attribute = UpdateAccountRequest.Attribute(rawValue: name) else {
                throw AuthError(
                    .invalidJSONPayload,
                    "Invalid JSON payload received. Invalid value at 'delete_attribute' (type.googleapis.com/google.cloud.identitytoolkit.v1.SetAccountInfoRequest.UserAttributeName), \"\(name)\""
                )
            }
            attributes.append(attribute)
        }
        return attributes
    }

    func delete(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        try await engine.deleteAccount(idToken: try wire.string("idToken"), origin: origin)
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }

    func createAuthURI(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        // `customParameter` is a map in the v1 API; the v3 API sends a list of {key, value}.
        var custom: [String: String] = [:]
        switch wire.fields["customParameter"] {
        case .object(let map)?: for (k, v) in map { custom[k] = v.stringValue }
        case .array(let items)?:
            for item in items {
                if let k = item["key"]?.stringValue, let v = item["value"]?.stringValue { custom[k] = v }
            }
        default: break
        }
        let scopes = (try wire.string("oauthScope") ?? "").split(whereSeparator: { $0 == "," || $0 == " " })
            .map(String.init)
        let result = try await engine.createAuthURI(
            CreateAuthURIRequest(
                identifier: try wire.string("identifier"), continueURI: try wire.string("continueUri"),
                sessionID: try wire.string("sessionId"), providerID: try wire.string("providerId"), scopes: scopes,
                customParameters: custom),
            origin: origin)
        return .compact([
            "kind": "identitytoolkit#CreateAuthUriResponse",
            "authUri": .text(result.authURI),
            "providerId": .text(result.providerID),
            "sessionId": .string(result.sessionID),
            "registered": result.registered.map(JSONValue.bool),
            "allProviders": result.allProviders.map { .array($0.map(JSONValue.string)) },
            "signinMethods": result.signInMethods.map { .array($0.map(JSONValue.string)) },
        ])
    }

    func projectConfig(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        [
            "projectId": .string(origin.project.projectNumber),
            "authorizedDomains": .array(origin.project.authorizedDomains.map(JSONValue.string)),
        ]
    }

    /// `v2/passwordPolicy` (schema version 1): the rule every password path checks (`PasswordPolicy.check`), as
    /// the JS SDK's `validatePassword` reads it. A tenant's request (`tenantId`) gets the rule its sign-ups use.
    func passwordPolicy(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let policy = origin.project.passwordPolicy
        return [
            "customStrengthOptions": [
                "minPasswordLength": .number(Double(policy.minLength)),
                "maxPasswordLength": .number(Double(policy.maxLength)),
            ],
            "allowedNonAlphanumericCharacters": .array(PasswordPolicy.nonAlphanumericCharacters.map(JSONValue.string)),
            "enforcementState": .string(policy.isFirebaseDefault ? "OFF" : "ENFORCE"),
            "forceUpgradeOnSignin": false,
            "schemaVersion": 1,
        ]
    }

    /// Identity Toolkit's `OobReqType`, by number.
    static let oobRequestTypes = [
        "OOB_REQ_TYPE_UNSPECIFIED", "PASSWORD_RESET", "OLD_EMAIL_AGREE", "NEW_EMAIL_ACCEPT", "VERIFY_EMAIL",
        "RECOVER_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "REVERT_SECOND_FACTOR_ADDITION",
    ]

    func sendOobCode(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.sendEmailAction(
            EmailActionRequest(
                kind: try wire.enumName("requestType", names: Self.oobRequestTypes), email: try wire.string("email"),
                newEmail: try wire.string("newEmail"), idToken: try wire.string("idToken"),
                continueURL: try wire.string("continueUrl"),
                canHandleCodeInApp: try wire.bool("canHandleCodeInApp") ?? false,
                iOSBundleID: try wire.string("iOSBundleId") ?? wire.string("iosBundleId"),
                androidPackageName: try wire.string("androidPackageName"),
                linkDomain: try wire.string("linkDomain") ?? wire.string("dynamicLinkDomain"),
                returnLink: try wire.bool("returnOobLink") ?? false),
            origin: origin)
        return .compact([
            "kind": "identitytoolkit#GetOobConfirmationCodeResponse",
            "email": .string(result.email),
            "oobCode": .text(result.code),
            "oobLink": .text(result.link),
        ])
    }

    func resetPassword(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.resetPassword(
            code: try wire.string("oobCode"), newPassword: try wire.string("newPassword"), origin: origin)
        return .compact([
            "kind": "identitytoolkit#ResetPasswordResponse",
            "requestType": .string(result.kind.rawValue),
            "email": .text(result.email.isEmpty ? nil : result.email),
            "newEmail": .text(result.newEmail),
        ])
    }

    func signInWithEmailLink(_ wire: WireRequest, _ origin: RequestOrigin) async throws -> JSONValue {
        let result = try await engine.signInWithEmailLink(
            EmailLinkSignInRequest(
                email: try wire.string("email"), oobCode: try wire.string("oobCode"),
                idToken: try wire.string("idToken")),
            origin: origin)
        let u = result.user
        return UserEncoding.withSession(
            .compact([
                "kind": "identitytoolkit#EmailLinkSigninResponse",
                "localId": .string(u.uid),
                "email": .text(u.email),
                "isNewUser": .bool(result.isNewUser),
            ]), result.tokens, result.challenge)
    }
}
