import HTTPTypes
import HearthCore
import NIOCore
import Testing

/// Methods named by Google's discovery documents for Identity Toolkit (as google-api-python-client ships them)
/// under names the Firebase SDKs do not use; tests/interop/test_discovery.py calls every one through that library.
@Suite("Google's API description")
struct GoogleAPIDescriptionTests {
    @Test func verifyIosClientIsVerifyClient() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.post("/v1/accounts:verifyIosClient", [:])
            #expect(r.errorCode == "MISSING_IOS_APP_TOKEN")
            let notHex = try await c.post("/v1/accounts:verifyIosClient", ["appToken": "not-hex-at-all-zz"])
            #expect(notHex.errorCode == "INVALID_APP_CREDENTIAL")
        }
    }

    @Test func publicKeysAndSessionCookieKeysPublishTheSigningKeys() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let token = try #require(try await c.signUp().string("idToken"))
            let header = try JSONValue(
                parsing: String(decoding: Base64URL.decode(String(token.split(separator: ".")[0]))!, as: UTF8.self))
            let kid = try #require(header["kid"]?.stringValue)
            let x509 = try await c.send("/v1/publicKeys", method: .get, key: nil)
            #expect(x509[kid]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
            let jwks = try await c.send("/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys", method: .get)
            #expect(jwks["keys"]?.arrayValue?.contains { $0["kid"]?.stringValue == kid } == true)
        }
    }

    @Test func adminMethodsUnderTheirOlderNames() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let made = try await c.admin("/v1/projects/\(h.projectID)/accounts", ["email": "ada@example.com"], token: token)
            let uid = try #require(made.string("localId"))
            let query = try await c.admin("/v1/projects/\(h.projectID):queryAccounts", [:], token: token)
            #expect(query.string("recordsCount") == "1")
            #expect(try await c.post("/v1/projects/\(h.projectID):queryAccounts", [:]).status == 401)

            let idps = try await c.admin("/v2/defaultSupportedIdps", token: token, method: .get)
            let ids = idps["defaultSupportedIdps"]?.arrayValue?.compactMap { $0["idpId"]?.stringValue } ?? []
            #expect(ids.contains("google.com") && ids.contains("apple.com"))

            let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
            let set = try await c.admin(
                "\(v3)/setProjectConfig", ["authorizedDomains": ["app.example.com"]], token: token)
            #expect(set.status == 200)
            let config = try await c.send("/v1/projects", method: .get)
            #expect(config["authorizedDomains"]?.arrayValue == ["app.example.com"])
            let mistyped = try await c.admin(
                "\(v3)/setProjectConfig", ["authorizedDomains": ["x.example", 3]], token: token)
            #expect(mistyped.errorCode == "INVALID_CONFIG")
            #expect(try await c.send("/v1/projects", method: .get)["authorizedDomains"]?.arrayValue == ["app.example.com"])
            let refused = try await c.admin("\(v3)/setProjectConfig", ["enableAnonymousUser": true], token: token)
            #expect(refused.errorCode == "INVALID_CONFIG")
            #expect(try await c.post("\(v3)/setProjectConfig", [:]).status == 401)

            // A user's session, then signOutUser: the refresh token is dead.
            _ = try await c.admin(
                "/v1/projects/\(h.projectID)/accounts:update", ["localId": .string(uid), "password": "pass-word"],
                token: token)
            let session = try await c.signIn("ada@example.com", "pass-word")
            let refreshToken = try #require(session.string("refreshToken"))
            h.clock.advance(2)
            let out = try await c.admin("\(v3)/signOutUser", ["localId": .string(uid)], token: token)
            #expect(out.string("localId") == uid)
            #expect(try await c.refresh(refreshToken).errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func queryParametersAreNeverStoredInAConfig() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let base = "/v2/projects/\(h.projectID)/oauthIdpConfigs"
            let created = try await c.admin(
                "\(base)?oauthIdpConfigId=oidc.corp&alt=json&prettyPrint=false",
                ["clientId": "hearth-web", "issuer": "https://id.corp.example", "enabled": true], token: token)
            #expect(created.status == 200)
            _ = try await c.admin(
                "\(base)/oidc.corp?updateMask=displayName&alt=json", ["displayName": "Corp"], token: token,
                method: .patch)
            let saml = "/v2/projects/\(h.projectID)/inboundSamlConfigs"
            _ = try await c.admin(
                "\(saml)?inboundSamlConfigId=saml.corp&alt=json",
                ["idpConfig": ["idpEntityId": "https://idp.example"], "spConfig": ["spEntityId": "hearth"]],
                token: token)
            let tenant = try await c.admin(
                "/v2/projects/\(h.projectID)/tenants?alt=json", ["displayName": "shop"], token: token)
            let tenantID = try #require(tenant.string("name")?.split(separator: "/").last.map(String.init))
            _ = try await c.admin(
                "/v2/projects/\(h.projectID)/config?alt=json", ["authorizedDomains": ["x.example"]], token: token,
                method: .patch)
            for path in [
                "\(base)/oidc.corp", "\(saml)/saml.corp", "/v2/projects/\(h.projectID)/tenants/\(tenantID)",
                "/v2/projects/\(h.projectID)/config",
            ] {
                let stored = try await c.admin(path + "?alt=json", token: token, method: .get)
                #expect(stored.status == 200, "\(path): \(stored.json)")
                #expect(stored["alt"] == nil && stored["prettyPrint"] == nil, "\(path): \(stored.json)")
            }
            let settings = try #require(try await h.store.projectSettings(projectID: h.projectID))
            #expect(!settings.contains("\"alt\"") && !settings.contains("prettyPrint"), "\(settings)")
        }
    }
}
