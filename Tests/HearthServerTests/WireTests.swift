import Foundation
import HTTPTypes
import HearthCore
import NIOCore
import Testing

@Suite("Wire protocol: paths, keys, errors, CORS")
struct WireTests {
    @Test func legacyAndHostPrefixedPathsReachTheSameHandlers() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let v3 = try await c.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser",
                ["email": "a@x.io", "password": "pass-word"])
            #expect(v3.string("kind") == "identitytoolkit#SignupNewUserResponse")
            let prefixed = try await c.post(
                "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                ["email": "a@x.io", "password": "pass-word"])
            #expect(prefixed.status == 200)
            let info = try await c.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/getAccountInfo",
                ["idToken": .string(prefixed.string("idToken")!)])
            #expect(info.status == 200)
            let config = try await c.send(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig", method: .get)
            #expect(config["authorizedDomains"] == ["localhost"])
            #expect(try await c.send("/v1/projects", method: .get).status == 200)
        }
    }

    @Test func apiKeyFromHeaderOrQuery() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let viaHeader = try await c.post(
                "/v1/accounts:signUp", [:], key: nil, headers: [HTTPField.Name("x-goog-api-key")!: Harness.apiKey])
            #expect(viaHeader.status == 200)
            let missing = try await c.post("/v1/accounts:signUp", [:], key: nil)
            #expect(missing.status == 403)
            #expect(missing.json["error"]?["status"]?.stringValue == "PERMISSION_DENIED")
            let wrong = try await c.post("/v1/accounts:signUp", [:], key: "not-a-key")
            #expect(wrong.status == 400)
            #expect(wrong.json["error"]?["message"]?.stringValue == "API key not valid. Please pass a valid API key.")
            #expect(try await h.store.countUsers(projectID: h.projectID) == 1)
        }
    }

    @Test func errorEnvelopeHasFirebasesShape() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.signIn("nobody@example.com", "whatever1")
            let error = try #require(r.json["error"])
            #expect(error["code"]?.doubleValue == 400)
            #expect(error["message"]?.stringValue == "INVALID_LOGIN_CREDENTIALS")
            #expect(error["status"]?.stringValue == "INVALID_ARGUMENT")
            guard case .array(let errors)? = error["errors"] else { Issue.record("no errors array"); return }
            #expect(errors.first?["reason"]?.stringValue == "invalid")
            #expect(errors.first?["domain"]?.stringValue == "global")
            #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test(arguments: ["{not json", "[1,2]", "\"text\"", "{\"email\":"])
    func malformedJSONIsInvalidArgument(body: String) async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v1/accounts:signUp", method: .post, body: ByteBuffer(string: body))
            #expect(r.status == 400)
            #expect(r.json["error"]?["status"]?.stringValue == "INVALID_ARGUMENT")
            #expect(r.json["error"]?["message"]?.stringValue?.hasPrefix("Invalid JSON payload received.") == true)
            #expect(try await h.store.countUsers(projectID: h.projectID) == 0)
        }
    }

    @Test func wrongFieldTypeIsInvalidArgument() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.post("/v1/accounts:signUp", ["email": 42, "password": "pass-word"])
            #expect(r.status == 400)
            #expect(r.json["error"]?["message"]?.stringValue?.contains("Invalid value at 'email'") == true)
            let arr = try await c.post("/v1/accounts:signUp", ["email": ["a@b.co"], "password": true])
            #expect(arr.status == 400)
        }
    }

    @Test func unknownRouteIsJSON404() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.post("/v1/accounts:doesNotExist", [:])
            #expect(r.status == 404)
            #expect(r.json["error"]?["status"]?.stringValue == "NOT_FOUND")
        }
    }

    @Test func oversizedBodyIs413() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let big = ByteBuffer(repeating: UInt8(ascii: " "), count: 17 * 1024 * 1024)
            let r = try await c.send("/v1/accounts:signUp", method: .post, body: big)
            #expect(r.status == 413)
            #expect(r.json["error"]?["code"]?.doubleValue == 413)
        }
    }

    @Test func corsPreflightReflectsOriginAndHeaders() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send(
                "/v1/accounts:signUp", method: .options, key: nil,
                headers: [
                    .origin: "https://app.example.com", .accessControlRequestMethod: "POST",
                    .accessControlRequestHeaders: "content-type,x-client-version",
                ])
            #expect(r.status == 204)
            #expect(r.headers[.accessControlAllowOrigin] == "https://app.example.com")
            #expect(r.headers[.accessControlAllowHeaders] == "content-type,x-client-version")
            let post = try await c.post("/v1/accounts:signUp", [:], headers: [.origin: "https://app.example.com"])
            #expect(post.headers[.accessControlAllowOrigin] == "https://app.example.com")
        }
    }

    @Test func publicKeysInBothFormatsWithCacheControl() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let token = try await c.signUp().string("idToken")!
            let kid = try #require(
                JSONValue(parsing: String(decoding: Base64URL.decode(token.split(separator: ".")[0])!, as: UTF8.self))[
                    "kid"]?.stringValue)
            let x509 = try await c.send(
                "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com", method: .get, key: nil)
            #expect(x509.status == 200)
            #expect(x509[kid]?.stringValue?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
            #expect(x509.headers[.cacheControl]?.contains("max-age=3600") == true)
            let jwks = try await c.send(
                "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com", method: .get, key: nil)
            guard case .array(let keys)? = jwks["keys"] else { Issue.record("no keys"); return }
            #expect(
                keys.contains {
                    $0["kid"]?.stringValue == kid && $0["alg"]?.stringValue == "RS256"
                        && $0["kty"]?.stringValue == "RSA"
                })
        }
    }
}
