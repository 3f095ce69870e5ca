import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthStore
import HearthTokens
import Hummingbird
import Testing

/// Sessions as records an operator lists and ends one by one, and the audit log of every admin change, through the
/// `/hearth/v1` admin routes with real service-account credentials.
@Suite("Sessions and the audit log")
struct SessionAndAuditTests {
    /// Runs `body` with an admin access token and the service account's e-mail (the audit log's actor).
    static func withAdmin(
        _ h: Harness, _ body: @Sendable @escaping (Client, String, String) async throws -> Void
    ) async throws {
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { c in
            try await body(c, try await account.accessToken(c, now: h.clock.authClock.now()), account.key.clientEmail)
        }
    }

    static func signIn(_ c: Client, _ email: String, _ password: String, userAgent: String) async throws -> Client.Reply {
        var headers = HTTPFields()
        headers[.userAgent] = userAgent
        return try await c.post(
            "/v1/accounts:signInWithPassword",
            ["email": .string(email), "password": .string(password), "returnSecureToken": true], headers: headers)
    }

    @Test func anAdminListsAUsersSessionsAndEndsExactlyOne() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token, actor in
            let signedUp = try await c.signUp(email: "ada@example.com", password: "correct horse")
            let uid = try #require(signedUp.string("localId"))
            h.clock.advance(1)
            let phone = try await Self.signIn(c, "ada@example.com", "correct horse", userAgent: "FirebaseAuth.iOS/11.4")
            h.clock.advance(1)
            let laptop = try await Self.signIn(c, "ada@example.com", "correct horse", userAgent: "Mozilla/5.0")
            let other = try await c.signUp(email: "bob@example.com", password: "battery staple")
            let otherUID = try #require(other.string("localId"))

            let base = "/hearth/v1/projects/\(h.projectID)/accounts/\(uid)/sessions"
            let listed = try await c.admin(base, token: token, method: .get)
            #expect(listed.status == 200)
            let sessions = try #require(listed["sessions"]?.arrayValue)
            #expect(sessions.count == 3)
            #expect(sessions.map { $0["signInProvider"]?.stringValue } == ["password", "password", "password"])
            #expect(sessions.compactMap { $0["userAgent"]?.stringValue } == ["FirebaseAuth.iOS/11.4", "Mozilla/5.0"])
            #expect(sessions.allSatisfy { $0["createdAt"]?.stringValue != nil && $0["lastUsedAt"]?.stringValue != nil })
            let phoneSession = try #require(
                sessions.first { $0["userAgent"]?.stringValue == "FirebaseAuth.iOS/11.4" }?["sessionId"]?.stringValue)
            // The id names the family, never a token or its hash: the token names its session (its first
            // generation), and its 256-bit secret comes after that.
            let phoneToken = try #require(phone.string("refreshToken"))
            #expect(phoneToken.hasPrefix("hrt2_\(phoneSession).0.") && phoneToken.count == "hrt2_\(phoneSession).0.".count + 43)
            #expect(phoneSession != Base64URL.encode(RefreshTokenCodec.hash(phoneToken)))

            // Bob's session id under Ada's path ends nothing.
            let bobs = try await c.admin(
                "/hearth/v1/projects/\(h.projectID)/accounts/\(otherUID)/sessions", token: token, method: .get)
            let bobSession = try #require(bobs["sessions"]?[0]?["sessionId"]?.stringValue)
            let wrongUser = try await c.admin("\(base)/\(bobSession)", token: token, method: .delete)
            #expect(wrongUser.status == 404 && wrongUser.errorCode == "NOT_FOUND")
            #expect(try await c.refresh(try #require(other.string("refreshToken"))).status == 200)

            let ended = try await c.admin("\(base)/\(phoneSession)", token: token, method: .delete)
            #expect(ended.status == 200)
            let refused = try await c.refresh(phoneToken)
            #expect(refused.errorCode == "TOKEN_EXPIRED")
            #expect(try await c.refresh(try #require(laptop.string("refreshToken"))).status == 200)
            #expect(try await c.refresh(try #require(signedUp.string("refreshToken"))).status == 200)
            let after = try await c.admin(base, token: token, method: .get)
            #expect(after["sessions"]?.arrayValue?.count == 2)
            #expect(after["sessions"]?.arrayValue?.contains { $0["sessionId"]?.stringValue == phoneSession } == false)

            // Without admin credentials: refused, nothing ended.
            let anonymous = try await c.send(base, method: .get)
            #expect(anonymous.status == 401)
            let anonymousDelete = try await c.send("\(base)/\(bobSession)", method: .delete)
            #expect(anonymousDelete.status == 401)
            // An end user's ID token is not an admin credential.
            let userToken = try #require(signedUp.string("idToken"))
            #expect(try await c.admin(base, token: userToken, method: .get).status == 401)

            let events = try await c.admin(
                "/hearth/v1/projects/\(h.projectID)/auditEvents?action=session.revoke", token: token, method: .get)
            let revocations = try #require(events["events"]?.arrayValue)
            #expect(revocations.map { $0["outcome"]?.stringValue } == ["success", "NOT_FOUND"])
            #expect(revocations.allSatisfy { $0["actor"]?.stringValue == actor })
            #expect(revocations.allSatisfy { $0["actorKind"]?.stringValue == "serviceAccount" })
            #expect(revocations[0]["uid"]?.stringValue == uid)
        }
    }

    @Test func everyAdminChangeIsOneEventWithARedactedDiff() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token, actor in
            let v1 = "/v1/projects/\(h.projectID)"
            let created = try await c.admin(
                "\(v1)/accounts",
                [
                    "email": "ada@example.com", "password": "first-Secret-pw",
                    "mfaInfo": [["phoneInfo": "+16505550101", "displayName": "work"]],
                ], token: token)
            let uid = try #require(created.string("localId"))
            let storedHash = try #require(try await h.store.user(projectID: h.projectID, uid: uid)?.passwordHash)
            func update(_ fields: [String: JSONValue]) async throws {
                var body = fields
                body["localId"] = .string(uid)
                let reply = try await c.admin("\(v1)/accounts:update", .object(body), token: token)
                #expect(reply.status == 200, "\(reply.json)")
            }
            try await update(["displayName": "Ada L.", "password": "second-Secret-pw"])
            try await update(["disableUser": true])
            try await update(["disableUser": false])
            try await update(["customAttributes": #"{"role":"admin"}"#])
            try await update(["validSince": .string(String(Int(h.clock.authClock.now().timeIntervalSince1970)))])
            try await update(["mfa": ["enrollments": []]])
            let reset = try await c.admin(
                "\(v1)/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true], token: token)
            #expect(reset.status == 200)
            let missing = try await c.admin("\(v1)/accounts:update", ["localId": "nobody", "displayName": "x"], token: token)
            #expect(missing.errorCode == "USER_NOT_FOUND")

            let idp = "/v2/projects/\(h.projectID)/oauthIdpConfigs"
            let provider = try await c.admin(
                "\(idp)?oauthIdpConfigId=oidc.corp",
                [
                    "clientId": "hearth-web", "clientSecret": "provider-client-SECRET-1",
                    "issuer": "https://id.corp.example", "enabled": true,
                ], token: token)
            #expect(provider.status == 200, "\(provider.json)")
            let changed = try await c.admin(
                "\(idp)/oidc.corp?updateMask=clientSecret", ["clientSecret": "provider-client-SECRET-2"], token: token,
                method: .patch)
            #expect(changed.status == 200, "\(changed.json)")
            let project = try await c.admin(
                "/v2/projects/\(h.projectID)/config?updateMask=authorizedDomains",
                ["authorizedDomains": ["app.example.com"]], token: token, method: .patch)
            #expect(project.status == 200, "\(project.json)")
            let tenant = try await c.admin("/v2/projects/\(h.projectID)/tenants", ["displayName": "Acme"], token: token)
            let tenantID = try #require(tenant.string("tenantId"))
            let patched = try await c.admin(
                "/v2/projects/\(h.projectID)/tenants/\(tenantID)?updateMask=displayName", ["displayName": "Acme2"],
                token: token, method: .patch)
            #expect(patched.status == 200)
            #expect(
                try await c.admin("/v2/projects/\(h.projectID)/tenants/\(tenantID)", token: token, method: .delete)
                    .status == 200)
            #expect(try await c.admin("\(v1)/accounts:delete", ["localId": .string(uid)], token: token).status == 200)
            // Reads are not events.
            _ = try await c.admin("\(v1)/accounts:lookup", ["localId": [.string(uid)]], token: token)
            _ = try await c.admin("/v2/projects/\(h.projectID)/config", token: token, method: .get)

            let page = try await c.admin("/hearth/v1/projects/\(h.projectID)/auditEvents", token: token, method: .get)
            let events = try #require(page["events"]?.arrayValue)
            let actions = events.reversed().compactMap { $0["action"]?.stringValue }
            #expect(
                actions == [
                    "user.create", "user.update", "user.disable", "user.enable", "user.claims", "sessions.revoke",
                    "mfa.remove", "user.passwordReset", "user.update", "provider.create", "provider.update",
                    "project.update", "tenant.create", "tenant.update", "tenant.delete", "user.delete",
                ])
            #expect(events.allSatisfy { $0["actor"]?.stringValue == actor && $0["actorKind"]?.stringValue == "serviceAccount" })
            let failed = try #require(events.first { $0["outcome"]?.stringValue != "success" })
            #expect(failed["action"]?.stringValue == "user.update" && failed["outcome"]?.stringValue == "USER_NOT_FOUND")
            let disable = try #require(events.first { $0["action"]?.stringValue == "user.disable" })
            #expect(disable["uid"]?.stringValue == uid)
            #expect(disable["diff"]?["before"]?["disabled"] == .bool(false))
            #expect(disable["diff"]?["after"]?["disabled"] == .bool(true))
            let claims = try #require(events.first { $0["action"]?.stringValue == "user.claims" })
            #expect(claims["diff"]?["after"]?["customClaims"]?.stringValue == #"{"role":"admin"}"#)
            let providerUpdate = try #require(events.first { $0["action"]?.stringValue == "provider.update" })
            #expect(providerUpdate["diff"]?["after"] != nil)

            // No secret anywhere in what the store keeps.
            let stored = try await h.store.auditEvents(AuditEventQuery(projectID: nil, limit: 1000))
            #expect(stored.count == events.count)
            let text = stored.compactMap(\.diff).joined(separator: "\n")
            for secret in [
                "first-Secret-pw", "second-Secret-pw", storedHash, "$scrypt$", "provider-client-SECRET-1",
                "provider-client-SECRET-2",
            ] {
                #expect(!text.contains(secret), "\(secret) in the audit log")
            }
            #expect(text.contains("[redacted]"))
        }
    }

    @Test func passkeyConfigChangesAndTestEmailsAreEventsToo() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token, actor in
            let passkeys = try await c.admin(
                "/v2/projects/\(h.projectID)/passkeyConfig?updateMask=rpId,expectedOrigins",
                ["rpId": "example.com", "expectedOrigins": ["https://example.com"]], token: token, method: .patch)
            #expect(passkeys.status == 200, "\(passkeys.json)")
            // The console's "Send test e-mail", as the signed-in console admin.
            let origin = RequestOrigin(project: try #require(h.engine.projects.config(h.projectID)), clientIP: nil, isAdmin: true)
            try await AuditActor.$current.withValue(AuditActor(kind: .consoleAdmin, id: "ops@example.com", clientAddress: nil)) {
                try await h.engine.sendTestEmail(template: "passwordReset", to: "Ada@Example.com", origin: origin)
                await #expect(throws: AuthError.self) {
                    try await h.engine.sendTestEmail(template: "noSuchTemplate", to: "ada@example.com", origin: origin)
                }
            }
            let sent = try await h.store.emailOutbox(projectID: h.projectID)
            #expect(sent.map(\.email) == ["ada@example.com"] && sent.first?.kind == .passwordReset)

            let page = try await c.admin("/hearth/v1/projects/\(h.projectID)/auditEvents", token: token, method: .get)
            let events = try #require(page["events"]?.arrayValue).reversed().map { $0 }
            #expect(events.compactMap { $0["action"]?.stringValue } == ["passkeyConfig.update", "settings.testEmail", "settings.testEmail"])
            #expect(events[0]["actor"]?.stringValue == actor)
            #expect(events[0]["diff"]?["after"]?["passkeyConfig"]?["rpId"]?.stringValue == "example.com")
            #expect(events[1]["actor"]?.stringValue == "ops@example.com" && events[1]["outcome"]?.stringValue == "success")
            #expect(events[2]["outcome"]?.stringValue == "INVALID_ARGUMENT")
        }
    }

    @Test func anAdminsPasskeyRemovalIsOneEventAndAUsersOwnIsNone() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token, actor in
            func passkey(_ id: [UInt8], _ name: String) -> PasskeyCredential {
                PasskeyCredential(
                    credentialID: id, userHandle: Array(repeating: 1, count: 32), publicKey: [0xA5, 0x5A, 0xC3],
                    algorithm: -7, name: name, createdAt: h.clock.authClock.now())
            }
            let signedUp = try await c.signUp(email: "ada@example.com", password: "correct horse")
            let uid = try #require(signedUp.string("localId"))
            var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            user.passkeys = [passkey([0xFB, 0xFF, 1], "Phone"), passkey([2, 3], "Key"), passkey([4, 5], "Laptop")]
            try await h.store.updateUser(user)

            let removed = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(uid), "deletePasskey": ["+/8B"]],
                token: token)
            #expect(removed.status == 200, "\(removed.json)")
            // The user's own removal (the client SDKs' unenroll) is no operator's change.
            let own = try await c.post(
                "/v1/accounts:update",
                ["idToken": .string(try #require(signedUp.string("idToken"))), "deletePasskey": ["AgM="]])
            #expect(own.status == 200, "\(own.json)")
            #expect(try await h.store.user(projectID: h.projectID, uid: uid)?.passkeys.map(\.name) == ["Laptop"])

            let page = try await c.admin("/hearth/v1/projects/\(h.projectID)/auditEvents", token: token, method: .get)
            // The user's own sign-up and sign-ins may be in the log too (endUser activity, written in batches); the
            // operators' events are exactly one.
            let events = try #require(page["events"]?.arrayValue).filter { $0["actorKind"]?.stringValue != "endUser" }
            #expect(events.count == 1)
            let event = try #require(events.first)
            #expect(event["action"]?.stringValue == "passkey.remove" && event["uid"]?.stringValue == uid)
            #expect(event["actor"]?.stringValue == actor && event["outcome"]?.stringValue == "success")
            #expect(event["diff"]?["before"]?["passkeys"] == ["+/8B", "AgM=", "BAU="])
            #expect(event["diff"]?["after"]?["passkeys"] == ["AgM=", "BAU="])
            // Credential ids only: no public key reaches the log.
            let stored = try await h.store.auditEvents(AuditEventQuery(projectID: nil, limit: 10))
            #expect(!stored.compactMap(\.diff).joined().contains(Base64.encode([0xA5, 0x5A, 0xC3])))
        }
    }

    @Test func theLogFiltersPagesAndKeepsTenantsApart() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token, actor in
            let tenant = try await c.admin("/v2/projects/\(h.projectID)/tenants", ["displayName": "Acme"], token: token)
            let tenantID = try #require(tenant.string("tenantId"))
            _ = try await c.admin(
                "/v2/projects/\(h.projectID)/tenants/\(tenantID)?updateMask=allowPasswordSignup",
                ["allowPasswordSignup": true], token: token, method: .patch)
            var uids: [String] = []
            for i in 0..<5 {
                let created = try await c.admin(
                    "/v1/projects/\(h.projectID)/accounts", ["email": .string("u\(i)@example.com")], token: token)
                uids.append(try #require(created.string("localId")))
                h.clock.advance(1)
            }
            let inTenant = try await c.admin(
                "/v1/projects/\(h.projectID)/tenants/\(tenantID)/accounts", ["email": "t@example.com"], token: token)
            let tenantUID = try #require(inTenant.string("localId"))

            let log = "/hearth/v1/projects/\(h.projectID)/auditEvents"
            var seen: [String] = []
            var pageToken: String?
            repeat {
                let path = "\(log)?action=user.create&pageSize=2" + (pageToken.map { "&pageToken=\($0)" } ?? "")
                let page = try await c.admin(path, token: token, method: .get)
                #expect(page.status == 200, "\(page.json)")
                seen += page["events"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } ?? []
                pageToken = page.string("nextPageToken")
            } while pageToken != nil
            #expect(seen == uids.reversed(), "newest first, every page after the last")

            let one = try await c.admin("\(log)?uid=\(uids[2])", token: token, method: .get)
            #expect(one["events"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == [uids[2]])
            #expect(try await c.admin("\(log)?actor=cli", token: token, method: .get)["events"]?.arrayValue?.isEmpty == true)
            let byActor = try await c.admin("\(log)?actor=\(actor)&action=user.create", token: token, method: .get)
            #expect(byActor["events"]?.arrayValue?.count == 5)
            let start = h.clock.authClock.now().addingTimeInterval(-2.5).rfc3339Milliseconds
            let recent = try await c.admin("\(log)?action=user.create&startTime=\(start)", token: token, method: .get)
            #expect(recent["events"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == [uids[4], uids[3]])
            #expect(try await c.admin("\(log)?startTime=yesterday", token: token, method: .get).errorCode == "INVALID_ARGUMENT")
            #expect(try await c.admin("\(log)?pageToken=garbage", token: token, method: .get).errorCode == "INVALID_ARGUMENT")

            // The tenant's user is in the tenant's log only; another tenant sees none of it.
            #expect(seen.contains(tenantUID) == false)
            let tenantLog = try await c.admin(
                "/hearth/v1/projects/\(h.projectID)/tenants/\(tenantID)/auditEvents", token: token, method: .get)
            #expect(tenantLog["events"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } == [tenantUID])
            #expect(tenantLog["events"]?[0]?["tenantId"]?.stringValue == tenantID)
            let other = try await c.admin("/v2/projects/\(h.projectID)/tenants", ["displayName": "Beta"], token: token)
            let otherID = try #require(other.string("tenantId"))
            let otherLog = try await c.admin(
                "/hearth/v1/projects/\(h.projectID)/tenants/\(otherID)/auditEvents", token: token, method: .get)
            #expect(otherLog.status == 200 && otherLog["events"]?.arrayValue?.isEmpty == true)

            #expect(try await c.send(log, method: .get).status == 401)
        }
    }

    @Test func endUserSignInsAndFailuresReachTheUsersHistoryInBatches() async throws {
        let h = try await Harness()
        try await Self.withAdmin(h) { c, token, _ in
            let signedUp = try await c.signUp(email: "ada@example.com", password: "correct horse")
            let uid = try #require(signedUp.string("localId"))
            #expect(try await c.signIn("ada@example.com", "wrong horse").status == 400)
            #expect(try await c.signIn("ada@example.com", "correct horse").status == 200)
            let disabled = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(uid), "disableUser": true], token: token)
            #expect(disabled.status == 200)
            #expect(try await c.signIn("ada@example.com", "correct horse").errorCode == "USER_DISABLED")
            await h.engine.flushActivity()
            let history = try await c.admin(
                "/hearth/v1/projects/\(h.projectID)/auditEvents?uid=\(uid)", token: token, method: .get)
            let events = try #require(history["events"]?.arrayValue).reversed()
            #expect(
                events.map { $0["action"]?.stringValue } == [
                    "user.signUp", "user.signIn", "user.signInFailed", "user.signIn", "user.disable", "user.signInFailed",
                ])
            #expect(
                events.map { $0["outcome"]?.stringValue } == [
                    "success", "success", "INVALID_LOGIN_CREDENTIALS", "success", "success", "USER_DISABLED",
                ])
            // The user's History holds the operator's change beside their own activity.
            #expect(events.filter { $0["actorKind"]?.stringValue == "endUser" }.allSatisfy { $0["actor"]?.stringValue == uid })
            #expect(events.filter { $0["actorKind"]?.stringValue != "endUser" }.map { $0["action"]?.stringValue } == ["user.disable"])
            #expect(events.first?["diff"]?["after"]?["signInProvider"]?.stringValue == "password")
        }
    }

    /// The newest event of `uid`'s History, as the admin API lists it.
    static func lastEvent(_ c: Client, _ h: Harness, uid: String, token: String) async throws -> JSONValue? {
        await h.engine.flushActivity()
        let history = try await c.admin(
            "/hearth/v1/projects/\(h.projectID)/auditEvents?uid=\(uid)", token: token, method: .get)
        return history["events"]?.arrayValue?.first
    }

    @Test func failedIdPPhoneAndEmailLinkSignInsReachTheUsersHistory() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { c in
            // A disabled account's IdP sign-in.
            let google = #"{"sub":"g-1","email":"gina@example.com","email_verified":true}"#
            let first = try await FederatedSignInTests.signInWithIdp(c, provider: "google.com", idToken: google)
            let gina = try #require(first.string("localId"))
            let disabled = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(gina), "disableUser": true],
                token: "owner")
            #expect(disabled.status == 200)
            #expect(
                try await FederatedSignInTests.signInWithIdp(c, provider: "google.com", idToken: google).errorCode
                    == "USER_DISABLED")
            let idp = try await Self.lastEvent(c, h, uid: gina, token: "owner")
            #expect(idp?["action"]?.stringValue == "user.signInFailed" && idp?["outcome"]?.stringValue == "USER_DISABLED")
            #expect(idp?["diff"]?["after"]?["signInProvider"]?.stringValue == "google.com")
            // The same account through a custom token.
            let custom = JWS.unsigned(payload: ["aud": .string(CustomClaims.customTokenAudience), "uid": .string(gina)])
            #expect(
                try await c.post("/v1/accounts:signInWithCustomToken", ["token": .string(custom)]).errorCode
                    == "USER_DISABLED")
            let token = try await Self.lastEvent(c, h, uid: gina, token: "owner")
            #expect(token?["outcome"]?.stringValue == "USER_DISABLED")
            #expect(token?["diff"]?["after"]?["signInProvider"]?.stringValue == "custom")

            // A wrong SMS code for an existing account's number.
            let phone = "+15555550100"
            func sendCode() async throws -> String {
                let sent = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(phone)])
                return try #require(sent.string("sessionInfo"))
            }
            let session = try await sendCode()
            let code = try #require(try await h.store.outbox(projectID: h.projectID).last?.code)
            let signedIn = try await c.post(
                "/v1/accounts:signInWithPhoneNumber", ["sessionInfo": .string(session), "code": .string(code)])
            let phoneUID = try #require(signedIn.string("localId"))
            h.clock.advance(31)
            let again = try await sendCode()
            let wrong = try await c.post(
                "/v1/accounts:signInWithPhoneNumber", ["sessionInfo": .string(again), "code": "000000"])
            #expect(wrong.errorCode == "INVALID_CODE")
            let sms = try await Self.lastEvent(c, h, uid: phoneUID, token: "owner")
            #expect(sms?["action"]?.stringValue == "user.signInFailed" && sms?["outcome"]?.stringValue == "INVALID_CODE")
            #expect(sms?["diff"]?["after"]?["signInProvider"]?.stringValue == "phone")

            // A used e-mail link for an existing account.
            _ = try await c.post("/v1/accounts:sendOobCode", .object(EmailLinkSignInTests.signInSettings))
            let mail = try #require(try await h.store.emailOutbox(projectID: h.projectID).last)
            let linked = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(mail.oobCode)])
            let ada = try #require(linked.string("localId"))
            let reused = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(mail.oobCode)])
            #expect(reused.errorCode == "INVALID_OOB_CODE")
            let link = try await Self.lastEvent(c, h, uid: ada, token: "owner")
            #expect(link?["action"]?.stringValue == "user.signInFailed" && link?["outcome"]?.stringValue == "INVALID_OOB_CODE")
            #expect(link?["diff"]?["after"]?["signInProvider"]?.stringValue == "emailLink")

            // An address or number without an account has no History: nothing is recorded for it.
            let stranger = try await c.post(
                "/v1/accounts:signInWithEmailLink", ["email": "nobody@example.com", "oobCode": .string(mail.oobCode)])
            #expect(stranger.errorCode == "INVALID_OOB_CODE")
            await h.engine.flushActivity()
            let failures = try await c.admin(
                "/hearth/v1/projects/\(h.projectID)/auditEvents?action=user.signInFailed", token: "owner", method: .get)
            #expect(failures["events"]?.arrayValue?.count == 4)
        }
    }

    @Test func aDisabledAccountsPasswordSignInIsInItsHistoryWithoutEnumerationProtection() async throws {
        let h = try await Harness { $0.emailEnumerationProtection = false }
        try await Self.withAdmin(h) { c, token, _ in
            let uid = try #require(try await c.signUp(email: "ada@example.com", password: "correct horse").string("localId"))
            let disabled = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(uid), "disableUser": true], token: token)
            #expect(disabled.status == 200)
            // Without the protection a disabled account is named before the password is checked.
            #expect(try await c.signIn("ada@example.com", "wrong horse").errorCode == "USER_DISABLED")
            let event = try await Self.lastEvent(c, h, uid: uid, token: token)
            #expect(event?["action"]?.stringValue == "user.signInFailed" && event?["outcome"]?.stringValue == "USER_DISABLED")
        }
    }

    @Test func theEmulatorsResetAndConfigChangesAreAuditedAsItsOwner() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { c in
            _ = try await c.signUp(email: "ada@example.com", password: "correct horse")
            let patched = try await c.send(
                "/emulator/v1/projects/\(h.projectID)/config", method: .patch,
                body: ByteBuffer(string: #"{"signIn":{"allowDuplicateEmails":true}}"#), key: nil)
            #expect(patched.status == 200)
            let deleted = try await c.send("/emulator/v1/projects/\(h.projectID)/accounts", method: .delete, key: nil)
            #expect(deleted.status == 200)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)

            let log = try await c.admin("/hearth/v1/projects/\(h.projectID)/auditEvents", token: "owner", method: .get)
            let events = try #require(log["events"]?.arrayValue)
            let reset = try #require(events.first { $0["action"]?.stringValue == "user.deleteAll" })
            #expect(reset["actorKind"]?.stringValue == "emulatorOwner" && reset["actor"]?.stringValue == "owner")
            #expect(reset["diff"]?["after"]?["deletedUsers"]?.doubleValue == 1)
            let config = try #require(events.first { $0["action"]?.stringValue == "project.update" })
            #expect(config["actorKind"]?.stringValue == "emulatorOwner")
            #expect(config["diff"]?["after"]?.jsonText.contains("allowDuplicateEmails") == true)
        }
    }

    @Test func activityIsCountedPerDayByProviderWithFailuresAndMessagesSent() async throws {
        let h = try await Harness()
        try await h.run { c in
            let origin = RequestOrigin(project: try #require(h.engine.projects.config(h.projectID)), clientIP: nil)
            _ = try await c.signUp(email: "ada@example.com", password: "correct horse")
            #expect(try await c.signIn("ada@example.com", "wrong horse").status == 400)
            #expect(try await c.signIn("ada@example.com", "correct horse").status == 200)
            let reset = try await c.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            #expect(reset.status == 200)
            let sent = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550101"])
            let code = try #require(try await h.store.outbox(projectID: h.projectID).last?.code)
            let phone = try await c.post(
                "/v1/accounts:signInWithPhoneNumber",
                ["sessionInfo": .string(try #require(sent.string("sessionInfo"))), "code": .string(code)])
            #expect(phone.status == 200)
            h.clock.advance(86_400)
            #expect(try await c.signIn("ada@example.com", "correct horse").status == 200)

            // Read without flushing first: the summary stores what is still buffered itself.
            let days = try await h.engine.activity(days: 30, origin: origin)
            #expect(days.count == 30)
            let (yesterday, today) = (days[28], days[29])
            #expect(today.day.timeIntervalSince(yesterday.day) == 86_400)
            #expect(yesterday.signIns == ["password": 2, "phone": 1])
            #expect(yesterday.signUps == 2 && yesterday.failedSignIns == 1)
            #expect(yesterday.emailsSent == 1 && yesterday.smsSent == 1)
            #expect(today.signIns == ["password": 1] && today.signUps == 0 && today.emailsSent == 0)
            #expect(days.dropLast(2).allSatisfy { $0.totalSignIns == 0 && $0.signUps == 0 })
        }
    }
}

