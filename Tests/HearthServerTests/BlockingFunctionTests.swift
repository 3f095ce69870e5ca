import Foundation
import HearthCore
import HearthTokens
import Hummingbird
import Synchronization
import Testing

/// Blocking functions against a real HTTP function on 127.0.0.1 that reads the event JWT, checks its signature
/// with the server's published key, and answers as a Cloud Function would.
@Suite("Blocking functions")
struct BlockingFunctionTests {
    /// A function: records each event's claims, refuses `blocked@…`, and otherwise changes the user.
    final class Function: Sendable {
        let events = Mutex<[[String: JSONValue]]>([])

        func router(verifyingWith h: Harness) -> Router<BasicRequestContext> {
            let router = Router()
            router.post("/fn") { request, _ -> Response in
                let body = try JSONValue(parsing: String(buffer: try await request.body.collect(upTo: 1 << 20)))
                let jwt = body["data"]?["jwt"]?.stringValue ?? ""
                guard let parsed = JWS.parse(jwt), let kid = parsed.header["kid"]?.stringValue,
                    let key = h.engine.idTokens.keyRing.key(kid: kid), JWS.verifyRS256(parsed, key: key.publicKey)
                else { return Response(status: .unauthorized) }
                self.events.withLock { $0.append(parsed.payload) }
                let email = parsed.payload["user_record"]?["email"]?.stringValue ?? ""
                let answer: JSONValue
                if email.hasPrefix("blocked@") {
                    answer = ["error": ["status": "PERMISSION_DENIED", "message": "Blocked by policy"]]
                    return Response(
                        status: .forbidden, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(string: answer.jsonText)))
                }
                switch parsed.payload["event_type"]?.stringValue {
                case "beforeCreate":
                    answer = [
                        "userRecord": [
                            "updateMask": "displayName,customClaims", "displayName": "Named by function",
                            "customClaims": ["role": "member"],
                        ]
                    ]
                default:
                    answer = ["userRecord": ["updateMask": "sessionClaims", "sessionClaims": ["session": "yes"]]]
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: answer.jsonText)))
            }
            return router
        }
    }

    @Test func functionsShapeNewUsersAndSessionsAndCanRefuse() async throws {
        let h = try await Harness()
        let function = Function()
        try await serveOnLoopback(function.router(verifyingWith: h)) { base in
            try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
                let config = "/v2/projects/\(h.projectID)/config"
                let set = try await c.admin(
                    config,
                    [
                        "blockingFunctions": [
                            "triggers": [
                                "beforeCreate": ["functionUri": .string("\(base)/fn")],
                                "beforeSignIn": ["functionUri": .string("\(base)/fn")],
                            ]
                        ]
                    ], token: token, method: .patch)
                #expect(set["blockingFunctions"]?["triggers"]?["beforeCreate"]?["functionUri"]?.stringValue == "\(base)/fn")

                let created = try await c.signUp(email: "ada@example.com", password: "secret-1")
                #expect(created.status == 200, "\(created.json)")
                let claims = try claims(of: created.string("idToken"))
                #expect(claims["role"]?.stringValue == "member", "customClaims from beforeCreate")
                #expect(claims["session"]?.stringValue == "yes", "sessionClaims from beforeSignIn")
                let stored = try await h.store.user(projectID: h.projectID, email: "ada@example.com")
                #expect(stored?.displayName == "Named by function")
                #expect(stored?.customClaims?.contains("member") == true)

                let events = function.events.withLock { $0 }
                #expect(events.map { $0["event_type"]?.stringValue } == ["beforeCreate", "beforeSignIn"])
                #expect(events.first?["aud"]?.stringValue == "\(base)/fn")
                #expect(events.first?["iss"]?.stringValue == "https://securetoken.google.com/\(h.projectID)")

                let refused = try await c.signUp(email: "blocked@example.com", password: "secret-1")
                #expect(refused.status == 400 && refused.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
                #expect(refused.json["error"]?["message"]?.stringValue?.contains("Blocked by policy") == true)
                #expect(try await h.store.user(projectID: h.projectID, email: "blocked@example.com") == nil)

                // A session renewed by a password change is no sign-in: the function is not asked.
                let before = function.events.withLock { $0.count }
                let changed = try await c.post(
                    "/v1/accounts:update",
                    ["idToken": .string(created.string("idToken")!), "password": "secret-2", "returnSecureToken": true])
                #expect(changed.status == 200)
                #expect(function.events.withLock { $0.count } == before)
            }
        }
    }

    @Test func badConfigsAndUnreachableFunctionsAreClearErrors() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let config = "/v2/projects/\(h.projectID)/config"
            for triggers: JSONValue in [
                ["beforeLunch": ["functionUri": "http://127.0.0.1:1/fn"]],
                ["beforeCreate": ["functionUri": "not a url"]],
                [1],
            ] {
                let reply = try await c.admin(
                    config, ["blockingFunctions": ["triggers": triggers]], token: token, method: .patch)
                #expect(reply.errorCode == "INVALID_BLOCKING_FUNCTION")
            }
            // Port 1 on loopback: nothing listens.
            _ = try await c.admin(
                config, ["blockingFunctions": ["triggers": ["beforeSignIn": ["functionUri": "http://127.0.0.1:1/fn"]]]],
                token: token, method: .patch)
            let reply = try await c.signUp(email: "x@example.com", password: "secret-1")
            #expect(reply.status == 400 && reply.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
        }
    }

    /// Events a recording function received.
    final class Recorder: Sendable {
        let events = Mutex<[[String: JSONValue]]>([])
    }

    /// A function that records events and answers each event type as configured.
    static func recording(_ answers: [String: JSONValue], into recorder: Recorder) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/fn") { request, _ -> Response in
            let body = try JSONValue(parsing: String(buffer: try await request.body.collect(upTo: 1 << 20)))
            let payload = JWS.parse(body["data"]?["jwt"]?.stringValue ?? "")?.payload ?? [:]
            recorder.events.withLock { $0.append(payload) }
            let answer = answers[payload["event_type"]?.stringValue ?? ""] ?? [:]
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: answer.jsonText)))
        }
        return router
    }

    @Test func eventsCarryWhatTheFunctionsSDKsReadAndBothPhotoSpellingsAreRead() async throws {
        let events = Recorder()
        let router = Self.recording(
            [
                // The Python functions SDK's spelling; the Node one writes photoUrl.
                "beforeCreate": ["userRecord": ["updateMask": "photoURL", "photoURL": "https://img.example/a.png"]]
            ], into: events)
        try await serveOnLoopback(router) { base in
            let h = try await Harness {
                $0.blockingFunctions = try! BlockingFunctionSettings(
                    config: ["triggers": ["beforeCreate": ["functionUri": .string("\(base)/fn")],
                                          "beforeSignIn": ["functionUri": .string("\(base)/fn")]]])
            }
            try await h.run { (c: Client) async throws in
                let made = try await c.post(
                    "/v1/accounts:signUp", ["email": "ada@example.com", "password": "secret-1"],
                    headers: [.userAgent: "HearthTest/1.0"])
                #expect(made.status == 200, "\(made.json)")
                let stored = try await h.store.user(projectID: h.projectID, email: "ada@example.com")
                #expect(stored?.photoURL == "https://img.example/a.png")
                let seen = events.events.withLock { $0 }
                #expect(seen.count == 2)
                for event in seen {
                    #expect(event["user_agent"]?.stringValue == "HearthTest/1.0")
                    #expect(event["event_id"]?.stringValue?.isEmpty == false && event["ip_address"] != nil)
                    #expect(event["locale"] != nil && event["sign_in_method"]?.stringValue == "password")
                }
                let record = try #require(seen.last?["user_record"])
                #expect(record["tokens_valid_after_time"]?.doubleValue != nil)
                #expect(record["metadata"]?["creation_time"]?.doubleValue != nil)
                let providers = record["provider_data"]?.arrayValue ?? []
                #expect(providers.contains {
                    $0["provider_id"]?.stringValue == "password" && $0["uid"]?.stringValue == "ada@example.com"
                })
            }
        }
    }

    @Test func beforeSendEmailAndBeforeSendSmsAreCalledAndCanBlock() async throws {
        let events = Recorder()
        let block: JSONValue = ["recaptchaActionOverride": "BLOCK"]
        let router = Self.recording(["beforeSendEmail": block, "beforeSendSms": block], into: events)
        try await serveOnLoopback(router) { base in
            let h = try await Harness(emulator: true) {
                $0.blockingFunctions = try! BlockingFunctionSettings(
                    config: ["triggers": ["beforeSendEmail": ["functionUri": .string("\(base)/fn")],
                                          "beforeSendSms": ["functionUri": .string("\(base)/fn")]]])
            }
            try await h.run { (c: Client) async throws in
                _ = try await c.signUp(email: "ada@example.com", password: "secret-1")
                let reset = try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
                #expect(reset.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(reset.json)")
                #expect(try await h.store.emailOutbox(projectID: h.projectID).isEmpty, "nothing sent")
                let sms = try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+14155550123"])
                #expect(sms.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(sms.json)")
                #expect(try await h.store.outbox(projectID: h.projectID).isEmpty, "nothing sent")
                let seen = events.events.withLock { $0 }
                #expect(seen.map { $0["event_type"]?.stringValue } == ["beforeSendEmail", "beforeSendSms"])
                #expect(seen.first?["email_type"]?.stringValue == "PASSWORD_RESET")
                #expect(seen.first?["user_record"]?["email"]?.stringValue == "ada@example.com")
                #expect(seen.last?["sms_type"]?.stringValue == "SIGN_IN_OR_SIGN_UP")
                #expect(seen.last?["phone_number"]?.stringValue == "+14155550123")
            }
        }
    }

    /// `sign_in_attributes`: a SAML sign-in's attribute statements as an object (what the functions SDKs hand the
    /// function as `credential.claims`, and what the sign-in's first ID token carries as
    /// `firebase.sign_in_attributes`, as the Auth Emulator's does); no other sign-in carries it, nor a refreshed
    /// token. In emulator mode, with the emulator's fake SAML response.
    @Test func aSAMLSignInSendsItsAttributesAndNoOtherSignInDoes() async throws {
        let events = Recorder()
        try await serveOnLoopback(Self.recording([:], into: events)) { base in
            let h = try await Harness(emulator: true) {
                $0.blockingFunctions = try! BlockingFunctionSettings(
                    config: ["triggers": ["beforeCreate": ["functionUri": .string("\(base)/fn")],
                                          "beforeSignIn": ["functionUri": .string("\(base)/fn")]]])
            }
            try await h.run { (c: Client) async throws in
                var unreserved = CharacterSet.alphanumerics
                unreserved.insert(charactersIn: "-._~")
                func form(_ value: JSONValue) -> String {
                    value.jsonText.addingPercentEncoding(withAllowedCharacters: unreserved)!
                }
                let attributes: JSONValue = ["department": "eng", "groups": ["admins", "staff"]]
                let saml: JSONValue = [
                    "assertion": ["subject": ["nameId": "ada@corp.example"], "attributeStatements": attributes]
                ]
                let token: JSONValue = ["sub": "saml-user-1", "email": "ada@corp.example"]
                let r = try await c.post(
                    "/v1/accounts:signInWithIdp",
                    [
                        "requestUri": "http://localhost", "returnSecureToken": true,
                        "postBody": .string("providerId=saml.corp&id_token=\(form(token))&SAMLResponse=\(form(saml))"),
                    ])
                #expect(r.status == 200, "\(r.json)")
                let seen = events.events.withLock { $0 }
                #expect(seen.map { $0["event_type"]?.stringValue } == ["beforeCreate", "beforeSignIn"])
                for event in seen {
                    #expect(event["sign_in_method"]?.stringValue == "saml.corp")
                    #expect(event["sign_in_attributes"] == attributes)
                }
                #expect(try claims(of: r.json["idToken"]?.stringValue)["firebase"]?["sign_in_attributes"] == attributes)
                let refreshed = try await c.refresh(try #require(r.json["refreshToken"]?.stringValue))
                #expect(refreshed.status == 200, "\(refreshed.json)")
                let refreshedClaims = try claims(of: refreshed.json["id_token"]?.stringValue)
                #expect(refreshedClaims["firebase"]?["sign_in_provider"]?.stringValue == "saml.corp")
                #expect(refreshedClaims["firebase"]?["sign_in_attributes"] == nil)
                let bob = try await c.signUp(email: "bob@example.com", password: "secret-1")
                #expect(events.events.withLock { $0.last?["sign_in_attributes"] } == nil)
                #expect(try claims(of: bob.json["idToken"]?.stringValue)["firebase"]?["sign_in_attributes"] == nil)
            }
        }
    }

    @Test func anIdPSignInForwardsTheProfileAndOnlyTheCredentialsTheConfigAllows() async throws {
        let events = Recorder()
        try await serveOnLoopback(Self.recording([:], into: events)) { base in
            try await FederatedSignInTests.withProviders { idp, h, c in
                let account = try await TestServiceAccount.register(in: h)
                let token = try await account.accessToken(c, now: h.clock.authClock.now())
                let set = try await c.admin(
                    "/v2/projects/\(h.projectID)/config?updateMask=blockingFunctions",
                    [
                        "blockingFunctions": [
                            "triggers": [
                                "beforeCreate": ["functionUri": .string("\(base)/fn")],
                                "beforeSignIn": ["functionUri": .string("\(base)/fn")],
                            ],
                            "forwardInboundCredentials": ["idToken": true, "accessToken": false],
                        ]
                    ], token: token, method: .patch)
                #expect(set.status == 200, "\(set.json)")
                let idToken = try FederatedSignInTests.appleToken(idp, h)
                let r = try await FederatedSignInTests.signInWithIdp(
                    c, idToken: idToken, accessToken: "provider-access-token", nonce: "raw-nonce-1")
                #expect(r.status == 200, "\(r.json)")
                let seen = events.events.withLock { $0 }
                #expect(seen.map { $0["event_type"]?.stringValue } == ["beforeCreate", "beforeSignIn"])
                for event in seen {
                    #expect(event["sign_in_method"]?.stringValue == "apple.com")
                    let profile = try JSONValue(parsing: try #require(event["raw_user_info"]?.stringValue))
                    #expect(profile["sub"]?.stringValue == "001234.apple")
                    #expect(event["oauth_id_token"]?.stringValue == idToken)
                    #expect(event["oauth_access_token"] == nil, "not forwarded: the config says no")
                }
                // A password sign-up carries no provider profile or credentials.
                _ = try await c.signUp(email: "bob@example.com", password: "secret-1")
                let last = events.events.withLock { $0.last }
                #expect(last?["raw_user_info"] == nil && last?["oauth_id_token"] == nil)
            }
        }
    }
}
