import Foundation
import HearthCore
import HearthProviders
import Hummingbird
import Testing

@Suite("Tenants (Identity Platform multi-tenancy)")
struct TenantTests {
    /// Runs `body` with an admin access token of the harness's project.
    func withAdmin(_ h: Harness, _ body: @Sendable @escaping (Client, String) async throws -> Void) async throws {
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { c in try await body(c, try await account.accessToken(c, now: h.clock.authClock.now())) }
    }

    func createTenant(_ c: Client, _ token: String, project: String, _ fields: JSONValue) async throws -> String {
        let created = try await c.admin("/v2/projects/\(project)/tenants", fields, token: token)
        #expect(created.status == 200, "\(created.json)")
        return try #require(created.string("tenantId"))
    }

    @Test func tenantsAreCreatedListedUpdatedAndDeleted() async throws {
        let h = try await Harness()
        try await withAdmin(h) { c, token in
            let base = "/v2/projects/\(h.projectID)/tenants"
            let id = try await createTenant(c, token, project: h.projectID, ["displayName": "Acme-Corp"])
            #expect(id.hasPrefix("acme-corp-"))
            let fetched = try await c.admin("\(base)/\(id)", token: token, method: .get)
            #expect(fetched.string("name") == "projects/\(h.projectID)/tenants/\(id)")
            #expect(fetched["allowPasswordSignup"] == .bool(false), "new tenants allow nothing until told")
            #expect(fetched["disableAuth"] == .bool(false))

            let other = try await createTenant(c, token, project: h.projectID, ["displayName": "Beta", "disableAuth": true])
            let page = try await c.admin("\(base)?pageSize=1", token: token, method: .get)
            #expect(page["tenants"]?[0]?["tenantId"]?.stringValue == min(id, other))
            #expect(page.string("nextPageToken") == min(id, other))
            let all = try await c.admin(base, token: token, method: .get)
            #expect(all["tenants"]?.arrayValue?.count == 2)

            let patched = try await c.send(
                "\(base)/\(id)?updateMask=allowPasswordSignup,displayName", method: .patch,
                body: ByteBuffer(
                    string: #"{"allowPasswordSignup":true,"displayName":"Acme-Two","enableAnonymousUser":true}"#),
                key: nil, headers: [.authorization: "Bearer \(token)"])
            #expect(patched["allowPasswordSignup"] == .bool(true) && patched.string("displayName") == "Acme-Two")
            #expect(patched["enableAnonymousUser"] == .bool(false), "outside the mask")
            let bad = try await c.admin(base, ["displayName": "1bad name"], token: token)
            #expect(bad.errorCode == "INVALID_ARGUMENT")

            #expect(try await c.send("\(base)/\(id)", method: .delete, key: nil, headers: [.authorization: "Bearer \(token)"]).status == 200)
            let gone = try await c.admin("\(base)/\(id)", token: token, method: .get)
            #expect(gone.status == 404 && gone.errorCode == "TENANT_NOT_FOUND")
        }
    }

    /// An updateMask path into a field names a key of an object field; a path into a string or a list names nothing.
    @Test func updateMaskPathsIntoFields() async throws {
        let h = try await Harness()
        try await withAdmin(h) { c, token in
            let base = "/v2/projects/\(h.projectID)/tenants"
            let id = try await createTenant(
                c, token, project: h.projectID,
                ["displayName": "Acme-Corp", "mfaConfig": ["state": "DISABLED", "enabledProviders": ["PHONE_SMS"]]])
            let ignored = try await c.admin(
                "\(base)/\(id)?updateMask=displayName.0,mfaConfig.enabledProviders.x",
                ["displayName": "Other-Name", "mfaConfig": ["enabledProviders": []]], token: token, method: .patch)
            #expect(ignored.string("displayName") == "Acme-Corp")
            #expect(ignored["mfaConfig"]?["enabledProviders"] == ["PHONE_SMS"])
            let state = try await c.admin(
                "\(base)/\(id)?updateMask=mfaConfig.state",
                ["mfaConfig": ["state": "ENABLED", "enabledProviders": []]], token: token, method: .patch)
            #expect(state["mfaConfig"]?["state"] == "ENABLED")
            #expect(state["mfaConfig"]?["enabledProviders"] == ["PHONE_SMS"], "only the named key changes")
        }
    }

    @Test func aTenantsUsersAreApartAndTheirTokensNameTheTenant() async throws {
        let h = try await Harness()
        try await withAdmin(h) { c, token in
            let acme = try await createTenant(
                c, token, project: h.projectID, ["displayName": "Acme", "allowPasswordSignup": true])
            let beta = try await createTenant(
                c, token, project: h.projectID, ["displayName": "Beta", "allowPasswordSignup": true])
            func signUp(_ tenant: String?) async throws -> Client.Reply {
                var body: [String: JSONValue] = [
                    "email": "same@example.com", "password": "secret-1", "returnSecureToken": true,
                ]
                if let tenant { body["tenantId"] = .string(tenant) }
                return try await c.post("/v1/accounts:signUp", .object(body))
            }
            let inAcme = try await signUp(acme)
            #expect(inAcme.status == 200, "\(inAcme.json)")
            #expect(try await signUp(beta).status == 200, "one address, one account per tenant")
            #expect(try await signUp(nil).status == 200, "and one in the project's own pool")
            #expect(try await signUp(acme).errorCode == "EMAIL_EXISTS")

            let idToken = try #require(inAcme.string("idToken"))
            let payload = try claims(of: idToken)
            #expect(payload["firebase"]?["tenant"]?.stringValue == acme)
            #expect(payload["aud"]?.stringValue == h.projectID)
            // The tenant is taken from the token when the request does not name one; naming another is refused.
            #expect(try await c.lookup(idToken)["users"]?[0]?["tenantId"]?.stringValue == acme)
            let mismatch = try await c.post("/v1/accounts:lookup", ["idToken": .string(idToken), "tenantId": .string(beta)])
            #expect(mismatch.errorCode == "TENANT_ID_MISMATCH")
            // Clients refresh without naming the tenant, as with Firebase.
            let refreshed = try await c.refresh(try #require(inAcme.string("refreshToken")))
            #expect(try claims(of: refreshed.string("id_token"))["firebase"]?["tenant"]?.stringValue == acme)

            let listed = try await c.admin(
                "/v1/projects/\(h.projectID)/tenants/\(acme)/accounts:batchGet", token: token, method: .get)
            #expect(listed["users"]?.arrayValue?.count == 1)
            #expect(listed["users"]?[0]?["tenantId"]?.stringValue == acme)
            let pool = try await c.admin("/v1/projects/\(h.projectID)/accounts:batchGet", token: token, method: .get)
            #expect(pool["users"]?.arrayValue?.count == 1)
            #expect(pool["users"]?[0]?["tenantId"] == nil)

            let wrongTenant = try await c.post(
                "/v1/accounts:signInWithPassword",
                ["email": "same@example.com", "password": "secret-1", "tenantId": .string(beta)])
            #expect(wrongTenant.status == 200 && wrongTenant.string("localId") != inAcme.string("localId"))
        }
    }

    @Test func aTenantsRulesHoldForItsClients() async throws {
        let h = try await Harness()
        try await withAdmin(h) { c, token in
            let closed = try await createTenant(c, token, project: h.projectID, ["displayName": "Closed"])
            let anon = try await c.post("/v1/accounts:signUp", ["tenantId": .string(closed)])
            #expect(anon.errorCode == "ADMIN_ONLY_OPERATION")
            let password = try await c.post(
                "/v1/accounts:signUp", ["tenantId": .string(closed), "email": "a@example.com", "password": "secret-1"])
            #expect(password.errorCode == "OPERATION_NOT_ALLOWED")
            let off = try await createTenant(
                c, token, project: h.projectID, ["displayName": "Offline", "disableAuth": true, "enableAnonymousUser": true])
            #expect(try await c.post("/v1/accounts:signUp", ["tenantId": .string(off)]).errorCode == "PROJECT_DISABLED")
            let unknown = try await c.post("/v1/accounts:signUp", ["tenantId": "no-such-tenant"])
            #expect(unknown.errorCode == "TENANT_NOT_FOUND")
            // Admins still create users in a tenant whose clients may not.
            let created = try await c.admin(
                "/v1/projects/\(h.projectID)/tenants/\(closed)/accounts", ["email": "made@example.com"], token: token)
            #expect(created.status == 200)
        }
    }

    /// A tenant's identity providers are its own (Identity Platform's rule): the project's OIDC provider neither
    /// signs anyone in to the tenant nor shows in the tenant's admin view, until the tenant configures one itself.
    @Test func aTenantHasOnlyItsOwnIdentityProviders() async throws {
        try await FederatedSignInTests.withProviders { idp, h, c in
            let account = try await TestServiceAccount.register(in: h)
            let token = try await account.accessToken(c, now: h.clock.authClock.now())
            let tenant = try await createTenant(
                c, token, project: h.projectID, ["displayName": "Acme", "allowPasswordSignup": true])
            let scope = "/v2/projects/\(h.projectID)/tenants/\(tenant)"
            for collection in ["defaultSupportedIdpConfigs", "oauthIdpConfigs"] {
                let listed = try await c.admin("\(scope)/\(collection)", token: token, method: .get)
                #expect(listed.status == 200 && listed[collection] == [], "\(collection): \(listed.json)")
            }
            let inherited = try await c.admin("\(scope)/oauthIdpConfigs/oidc.corp", token: token, method: .get)
            #expect(inherited.errorCode == "CONFIGURATION_NOT_FOUND")

            let issuer = try #require(h.engine.projects.config(h.projectID)?.federation.oidc["oidc.corp"]?.issuer)
            func signIn(_ sub: String, tenant: String?) async throws -> Client.Reply {
                let idToken = try FederatedSignInTests.oidcToken(
                    idp, h, iss: issuer, aud: FederatedSignInTests.oidcClient, sub: sub,
                    extra: ["nonce": .string(NonceRule.hash(sub))])
                return try await FederatedSignInTests.signInWithIdp(
                    c, provider: "oidc.corp", idToken: idToken, nonce: sub,
                    extra: tenant.map { ["tenantId": .string($0)] } ?? [:])
            }
            #expect(try await signIn("emp-1", tenant: nil).status == 200, "the project's own provider")
            #expect(try await signIn("emp-2", tenant: tenant).errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await h.store.countUsers(projectID: TenantScope.key(project: h.projectID, tenant: tenant)) == 0)

            let configured = try await c.admin(
                "\(scope)/oauthIdpConfigs?oauthIdpConfigId=oidc.corp",
                ["clientId": .string(FederatedSignInTests.oidcClient), "issuer": .string(issuer)], token: token)
            #expect(configured.status == 200, "\(configured.json)")
            let signedIn = try await signIn("emp-3", tenant: tenant)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(try claims(of: signedIn.string("idToken"))["firebase"]?["tenant"]?.stringValue == tenant)
            let listed = try await c.admin("\(scope)/oauthIdpConfigs", token: token, method: .get)
            #expect(listed["oauthIdpConfigs"]?.arrayValue?.count == 1)
            // The project's list is untouched by the tenant's.
            let projects = try await c.admin(
                "/v2/projects/\(h.projectID)/defaultSupportedIdpConfigs", token: token, method: .get)
            #expect(projects["defaultSupportedIdpConfigs"]?.arrayValue?.count == 3)
        }
    }

    @Test func aCustomTokenSignsInToItsOwnTenantOnly() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { c in
            let token = try await account.accessToken(c, now: h.clock.authClock.now())
            let tenant = try await createTenant(c, token, project: h.projectID, ["displayName": "Custom"])
            let now = h.clock.authClock.now()
            let forTenant = try account.sign(
                [
                    "iss": .string(account.key.clientEmail), "sub": .string(account.key.clientEmail),
                    "aud": .string(CustomClaims.customTokenAudience), "uid": "t-user", "tenant_id": .string(tenant),
                ], now: now)
            let inTenant = try await c.post(
                "/v1/accounts:signInWithCustomToken", ["token": .string(forTenant), "tenantId": .string(tenant)])
            #expect(inTenant.status == 200, "\(inTenant.json)")
            #expect(try claims(of: inTenant.string("idToken"))["firebase"]?["tenant"]?.stringValue == tenant)
            let inPool = try await c.post("/v1/accounts:signInWithCustomToken", ["token": .string(forTenant)])
            #expect(inPool.errorCode == "TENANT_ID_MISMATCH")
            let plain = try account.customToken(uid: "p-user", now: now)
            let plainInTenant = try await c.post(
                "/v1/accounts:signInWithCustomToken", ["token": .string(plain), "tenantId": .string(tenant)])
            #expect(plainInTenant.errorCode == "TENANT_ID_MISMATCH")
        }
    }
}
