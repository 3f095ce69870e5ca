import Foundation
import HearthCore
import NIOCore
import Testing

/// Whatever a client sends, the answer is a Firebase error (4xx) or a success, never a 5xx,
/// and the server keeps answering afterwards.
@Suite("Robustness")
struct RobustnessTests {
    static let paths = [
        "/v1/accounts:signUp", "/v1/accounts:signInWithPassword", "/v1/accounts:lookup", "/v1/accounts:update",
        "/v1/accounts:delete", "/v1/accounts:createAuthUri", "/v1/token", "/v1/projects",
        "/www.googleapis.com/identitytoolkit/v3/relyingparty/setAccountInfo",
    ]

    static let fields = [
        "email", "password", "idToken", "displayName", "photoUrl", "deleteAttribute", "deleteProvider", "identifier",
        "continueUri", "grantType", "refreshToken", "returnSecureToken", "grant_type", "refresh_token",
    ]

    static let values: [JSONValue] = [
        .null, true, 0, .number(-1e308), .number(1.5), "", " ", "a@b.co", String(repeating: "x", count: 70_000).asJSON,
        "eyJhbGciOiJub25lIn0.e30.", ("hrt1_" + String(repeating: "A", count: 43)).asJSON, "\u{0}\u{FFFF}😀",
        "DISPLAY_NAME",
        [], ["x", 1], [:], ["nested": ["deeper": [1, 2, 3]]],
    ]

    @Test func oddFieldValuesNeverCauseServerErrors() async throws {
        // Many of these bodies are valid anonymous sign-ups; the per-IP sign-up limit is not under test.
        let h = try await Harness { $0.rateLimits = .unlimited }
        try await h.run { (c: Client) async throws in
            var seen: Set<Int> = []
            for path in Self.paths {
                for field in Self.fields {
                    for value in Self.values {
                        let r = try await c.post(path, [field: value])
                        seen.insert(r.status)
                        #expect(
                            r.status < 500,
                            "\(path) \(field)=\(value.jsonText.prefix(40)) → \(r.status) \(r.json.jsonText.prefix(200))"
                        )
                    }
                }
            }
            #expect(seen.contains(400))
            #expect(try await c.signUp().status == 200)
        }
    }

    @Test(arguments: [
        String(repeating: "[", count: 10_000),
        "{\"a\":" + String(repeating: "{\"a\":", count: 500) + "1" + String(repeating: "}", count: 501),
        "\u{FEFF}{}", "{\"email\":\"\\ud800\"}", "null", "{}garbage", String(repeating: "9", count: 5000),
    ])
    func hostileBodiesAreRefusedCleanly(body: String) async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v1/accounts:signUp", method: .post, body: ByteBuffer(string: body))
            #expect(r.status == 400)
            #expect(r.json["error"]?["status"]?.stringValue == "INVALID_ARGUMENT")
        }
    }
}

extension String {
    var asJSON: JSONValue { .string(self) }
}

/// The same for admin requests: odd fields on every admin route answer 4xx (or succeed), never 5xx.
@Suite("Robustness of admin routes")
struct AdminRobustnessTests {
    static let paths = [
        "accounts", "accounts:lookup", "accounts:update", "accounts:delete", "accounts:batchCreate",
        "accounts:batchDelete", "accounts:query", "accounts:sendOobCode", ":createSessionCookie",
        "oauthIdpConfigs?oauthIdpConfigId=oidc.x", "defaultSupportedIdpConfigs?idpId=google.com",
    ]

    static let fields = [
        "localId", "email", "phoneNumber", "customAttributes", "validSince", "disableUser", "users", "hashAlgorithm",
        "signerKey", "rounds", "localIds", "force", "limit", "offset", "expression", "requestType", "idToken",
        "validDuration", "federatedUserId", "clientId", "issuer", "appleSignInConfig",
    ]

    @Test func oddAdminFieldsNeverCauseServerErrors() async throws {
        let h = try await Harness { $0.rateLimits = .unlimited }
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            for path in Self.paths {
                let url =
                    path.hasPrefix(":")
                    ? "/v1/projects/\(h.projectID)\(path)"
                    : path.contains("IdpConfigs")
                        ? "/v2/projects/\(h.projectID)/\(path)"
                        : "/v1/projects/\(h.projectID)/\(path)"
                for field in Self.fields {
                    for value in RobustnessTests.values {
                        let r = try await c.admin(url, [field: value], token: token)
                        #expect(
                            r.status < 500,
                            "\(path) \(field)=\(value.jsonText.prefix(40)) → \(r.status) \(r.json.jsonText.prefix(200))"
                        )
                    }
                }
            }
            let users: JSONValue = [
                "users": [["localId": "x", "passwordHash": "!!", "providerUserInfo": [["providerId": 1]]]],
                "hashAlgorithm": "BCRYPT",
            ]
            #expect(
                try await c.admin("/v1/projects/\(h.projectID)/accounts:batchCreate", users, token: token).status < 500)
        }
    }
}
