import HTTPTypes
import HearthCore
import HearthMessaging
import NIOCore
import Testing

/// The REST methods the Firebase JS SDK calls (packages/auth/src/api/index.ts, `Endpoint`), at the paths it calls
/// them: `/v1/…` and `/v2/…` on Identity Toolkit's host, `/v1/token` on Secure Token's.
@Suite("The JS SDK's REST surface")
struct WebSDKSurfaceTests {
    static let endpoints: [(HTTPRequest.Method, String)] = [
        (.post, "/v1/accounts:createAuthUri"), (.post, "/v1/accounts:delete"), (.post, "/v1/accounts:resetPassword"),
        (.post, "/v1/accounts:signUp"), (.post, "/v1/accounts:signInWithCustomToken"),
        (.post, "/v1/accounts:signInWithEmailLink"), (.post, "/v1/accounts:signInWithIdp"),
        (.post, "/v1/accounts:signInWithPassword"), (.post, "/v1/accounts:signInWithPhoneNumber"),
        (.post, "/v1/accounts:sendVerificationCode"), (.post, "/v1/accounts:sendOobCode"),
        (.post, "/v1/accounts:update"), (.post, "/v1/accounts:lookup"), (.get, "/v1/recaptchaParams"),
        (.post, "/v2/accounts/mfaEnrollment:start"), (.post, "/v2/accounts/mfaEnrollment:finalize"),
        (.post, "/v2/accounts/mfaSignIn:start"), (.post, "/v2/accounts/mfaSignIn:finalize"),
        (.post, "/v2/accounts/mfaEnrollment:withdraw"), (.get, "/v1/projects"), (.get, "/v2/recaptchaConfig"),
        (.get, "/v2/passwordPolicy"), (.post, "/v1/token"), (.post, "/v2/accounts:revokeToken"),
    ]

    @Test func everyEndpointIsServedAtBothHosts() async throws {
        #expect(Self.endpoints.count == 24)
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            for (method, path) in Self.endpoints {
                let host = path == "/v1/token" ? "/securetoken.googleapis.com" : "/identitytoolkit.googleapis.com"
                for url in [path, host + path] {
                    let r = try await c.send(url, method: method, body: method == .get ? nil : ByteBuffer(string: "{}"))
                    #expect(r.status != 404 && r.status < 500, "\(method) \(url): \(r.status) \(r.json)")
                    #expect(r.status == 200 || r.errorCode != nil, "\(method) \(url): \(r.json)")
                }
            }
        }
    }

    @Test func thePasswordPolicyIsFirebasesForAProjectWithoutOne() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v2/passwordPolicy", method: .get)
            #expect(r.status == 200)
            #expect(r["customStrengthOptions"]?["minPasswordLength"]?.doubleValue == 6)
            #expect(r["customStrengthOptions"]?["maxPasswordLength"]?.doubleValue == 4096)
            #expect(r.string("enforcementState") == "OFF")
            #expect(r["schemaVersion"]?.doubleValue == 1)
            guard case .array(let characters)? = r["allowedNonAlphanumericCharacters"] else {
                Issue.record("no allowedNonAlphanumericCharacters")
                return
            }
            #expect(characters.contains("!") && characters.contains("\\") && characters.contains("\""))
            #expect(characters.allSatisfy { $0.stringValue?.count == 1 })
        }
    }

    @Test func aConfiguredPolicyIsAnnouncedAsEnforcedAndIsTheOneSignUpChecks() async throws {
        let h = try await Harness { $0.passwordPolicy = PasswordPolicy(minLength: 10, maxLength: 64) }
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v2/passwordPolicy?tenantId=", method: .get)
            #expect(r["customStrengthOptions"]?["minPasswordLength"]?.doubleValue == 10)
            #expect(r["customStrengthOptions"]?["maxPasswordLength"]?.doubleValue == 64)
            #expect(r.string("enforcementState") == "ENFORCE")
            let short = try await c.signUp(email: "ada@example.com", password: "nine-char")
            #expect(short.status == 400)
            let long = try await c.signUp(email: "ada@example.com", password: String(repeating: "x", count: 65))
            #expect(long.errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(try await c.signUp(email: "ada@example.com", password: "ten-chars!").status == 200)
        }
    }

    @Test func recaptchaParamsAlwaysNameASiteKey() async throws {
        let bare = try await Harness()
        try await bare.run { (c: Client) async throws in
            let r = try await c.send("/v1/recaptchaParams", method: .get)
            #expect(r.status == 200)
            #expect(r.string("recaptchaSiteKey")?.isEmpty == false)
        }
        let verifier = RecaptchaVerifier(configuration: .init(secret: "server-secret", siteKey: "site-key-1"))
        let configured = try await Harness(recaptcha: verifier)
        try await configured.run { (c: Client) async throws in
            let r = try await c.send("/v1/recaptchaParams", method: .get)
            #expect(r.string("recaptchaSiteKey") == "site-key-1")
        }
    }
}
