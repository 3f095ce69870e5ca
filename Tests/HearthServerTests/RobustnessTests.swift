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
