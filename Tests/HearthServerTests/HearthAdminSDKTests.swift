import Foundation
import HearthAdmin
import HearthAdminHummingbird
import HearthCore
import HearthServer
import HearthTokens
import Hummingbird
import HummingbirdTesting
import Testing

/// HearthAdmin, the server-side Swift SDK, against a Hearth listening on a real loopback port.
@Suite("HearthAdmin SDK")
struct HearthAdminSDKTests {
    /// Runs `body` with a live server and an SDK holding a fresh service account of the harness's project.
    func withAdmin(_ h: Harness, _ body: @Sendable @escaping (HearthAdmin, Client) async throws -> Void) async throws {
        let app = Application(router: HearthApplication.router(engine: h.engine), logger: testLogger)
        defer { try? FileManager.default.removeItem(at: h.directory) }
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let credential = try ServiceAccountCredential.generate(
                projectID: h.projectID, tokenURI: "http://127.0.0.1:\(port)/oauth2/token", random: .system, now: Date())
            try await h.store.insertServiceAccountKey(credential.key)
            let admin = HearthAdmin(
                baseURL: URL(string: "http://127.0.0.1:\(port)")!,
                credentials: try ServiceAccountCredentials(json: Data(credential.json.jsonBytes)))
            try await body(admin, Client(client: client))
        }
    }

    @Test func verifiesIDTokensWithPublishedKeysAndChecksRevocation() async throws {
        let h = try await Harness(liveClock: true)
        try await withAdmin(h) { admin, c in
            let session = try await c.signUp(email: "ada@example.com", password: "secret1")
            let idToken = try #require(session.string("idToken"))
            let decoded = try await admin.verifyIDToken(idToken, checkRevoked: true)
            #expect(decoded.uid == session.string("localId"))
            #expect(decoded.signInProvider == "password")
            #expect(decoded.claims["email"]?.stringValue == "ada@example.com")

            var tampered = idToken
            tampered.removeLast(3)
            tampered += "AAA"
            await #expect(throws: HearthAdminError.invalidToken("bad signature")) {
                _ = try await admin.verifyIDToken(tampered)
            }
            let unsigned = JWS.unsigned(payload: .object(try claims(of: idToken)))
            await #expect(throws: HearthAdminError.invalidToken("algorithm must be RS256")) {
                _ = try await admin.verifyIDToken(unsigned)
            }
            let other = HearthAdmin(emulatorHost: "127.0.0.1", port: 1, projectID: "other-project")
            await #expect(throws: HearthAdminError.invalidToken("wrong audience")) {
                _ = try await other.verifyIDToken(unsigned)
            }

            let uid = try #require(session.string("localId"))
            try await Task.sleep(for: .milliseconds(1100))  // validSince has whole seconds
            h.clock.advance(2)
            try await admin.users.revokeRefreshTokens(uid: uid)
            _ = try await admin.verifyIDToken(idToken)  // still a valid signature…
            await #expect(throws: HearthAdminError.tokenRevoked) {  // …but the session is over
                _ = try await admin.verifyIDToken(idToken, checkRevoked: true)
            }
        }
    }

    @Test func mintsCustomTokensTheServerAccepts() async throws {
        let h = try await Harness(liveClock: true)
        try await withAdmin(h) { admin, c in
            let token = try admin.createCustomToken(uid: "naver:7", claims: ["plan": "pro"])
            let reply = try await c.post("/v1/accounts:signInWithCustomToken", ["token": .string(token)])
            #expect(reply.status == 200)
            let decoded = try await admin.verifyIDToken(try #require(reply.string("idToken")))
            #expect(decoded.uid == "naver:7" && decoded.claims["plan"]?.stringValue == "pro")
            #expect(throws: HearthAdminError.self) { _ = try admin.createCustomToken(uid: "x", claims: ["sub": "y"]) }
        }
    }

    @Test func managesUsersThroughTheAdminAPI() async throws {
        let h = try await Harness(liveClock: true)
        try await withAdmin(h) { admin, c in
            let created = try await admin.users.create(uid: "sdk-1", email: "sdk@example.com", password: "secret1")
            #expect(created.uid == "sdk-1" && created.email == "sdk@example.com")
            await #expect(throws: HearthAdminError.server(status: 400, code: "EMAIL_EXISTS", message: "EMAIL_EXISTS")) {
                _ = try await admin.users.create(email: "sdk@example.com")
            }
            try await admin.users.setCustomClaims(uid: "sdk-1", ["role": "editor"])
            #expect(try await admin.users.get(email: "sdk@example.com").customClaims == ["role": "editor"])
            let disabled = try await admin.users.update(uid: "sdk-1", displayName: "SDK", disabled: true)
            #expect(disabled.disabled && disabled.displayName == "SDK")
            #expect(try await c.signIn("sdk@example.com", "secret1").errorCode == "USER_DISABLED")
            let factor = AdminUser.SecondFactor(
                uid: "desk", displayName: "desk phone", phoneNumber: "+16505550131",
                enrollmentTime: Date(timeIntervalSince1970: 1_714_557_600))
            let enrolled = try await admin.users.update(uid: "sdk-1", enrolledFactors: [factor])
            #expect(enrolled.enrolledFactors == [factor])
            #expect(try await admin.users.update(uid: "sdk-1", enrolledFactors: []).enrolledFactors.isEmpty)
            let page = try await admin.users.list(maxResults: 10)
            #expect(page.users.map(\.uid) == ["sdk-1"] && page.nextPageToken == nil)
            try await admin.users.delete(uid: "sdk-1")
            await #expect(throws: HearthAdminError.self) { _ = try await admin.users.get(uid: "sdk-1") }
        }
    }

    @Test func listsAndEndsSessionsAndReadsTheAuditLog() async throws {
        let h = try await Harness(liveClock: true)
        try await withAdmin(h) { admin, c in
            let first = try await c.signUp(email: "ada@example.com", password: "correct horse")
            let uid = try #require(first.string("localId"))
            let second = try await c.signIn("ada@example.com", "correct horse")
            let sessions = try await admin.users.sessions(uid: uid)
            #expect(sessions.count == 2)
            // Over a real socket the client is 127.0.0.1, kept as its /24.
            #expect(sessions.allSatisfy { $0.ipPrefix == "127.0.0.0/24" && $0.signInProvider == "password" })
            #expect(sessions.allSatisfy { $0.createdAt != nil && $0.lastUsedAt != nil })
            try await admin.users.endSession(uid: uid, sessionID: sessions[0].sessionID)
            let refreshes = [
                try await c.refresh(try #require(first.string("refreshToken"))),
                try await c.refresh(try #require(second.string("refreshToken"))),
            ]
            #expect(refreshes.map(\.status).sorted() == [200, 400])
            #expect(refreshes.contains { $0.errorCode == "TOKEN_EXPIRED" })
            #expect(try await admin.users.sessions(uid: uid).map(\.sessionID) == [sessions[1].sessionID])
            await #expect(throws: HearthAdminError.self) {
                try await admin.users.endSession(uid: uid, sessionID: sessions[0].sessionID)
            }

            let log = try await admin.auditEvents(action: "session.revoke")
            #expect(log.events.map(\.outcome) == ["NOT_FOUND", "success"])
            #expect(log.events.allSatisfy { $0.actorKind == "serviceAccount" && $0.clientAddress == "127.0.0.1" })
            #expect(log.events.allSatisfy { $0.uid == uid })
            let first1 = try await admin.auditEvents(pageSize: 1)
            #expect(first1.nextPageToken != nil)
            let next = try await admin.auditEvents(pageSize: 1, pageToken: first1.nextPageToken)
            #expect(first1.events.map(\.eventID) == [log.events[0].eventID])
            #expect(next.events.map(\.eventID) == [log.events[1].eventID])
        }
    }

    @Test func listsAndDeletesPasskeysThroughTheAdminAPI() async throws {
        let h = try await Harness(liveClock: true)
        try await withAdmin(h) { admin, _ in
            func passkey(_ id: [UInt8], _ name: String, at seconds: Double = 0) -> PasskeyCredential {
                PasskeyCredential(
                    credentialID: id, userHandle: Array(repeating: 1, count: 32), publicKey: [0xA5], algorithm: -7,
                    backedUp: true, name: name, createdAt: Date(timeIntervalSince1970: 1_714_557_600 + seconds))
            }
            var user = UserRecord(
                projectID: h.projectID, uid: "pk-1", email: "pk@example.com", validSince: Date(), createdAt: Date())
            user.passkeys = [passkey([0xFB, 0xFF, 1], "Phone"), passkey([2, 3], "Key", at: 60)]
            try await h.store.insertUser(user)
            var only = UserRecord(projectID: h.projectID, uid: "pk-2", validSince: Date(), createdAt: Date())
            only.passkeys = [passkey([9], "Only")]
            try await h.store.insertUser(only)

            let listed = try await admin.users.get(uid: "pk-1").passkeys
            #expect(listed.map(\.credentialID) == ["+/8B", "AgM="] && listed.map(\.name) == ["Phone", "Key"])
            #expect(listed.first?.backedUp == true && listed.first?.createdAt != nil)
            // base64url names the same bytes as the standard alphabet the listing shows.
            let after = try await admin.users.deletePasskeys(uid: "pk-1", credentialIDs: ["-_8B"])
            #expect(after.passkeys.map(\.name) == ["Key"])
            await #expect(
                throws: HearthAdminError.server(
                    status: 400, code: "PASSKEY_ENROLLMENT_NOT_FOUND", message: "PASSKEY_ENROLLMENT_NOT_FOUND")
            ) { _ = try await admin.users.deletePasskeys(uid: "pk-1", credentialIDs: ["+/8B"]) }
            await #expect(throws: HearthAdminError.self) {
                _ = try await admin.users.deletePasskeys(uid: "pk-2", credentialIDs: ["CQ=="])
            }
            #expect(try await admin.users.get(uid: "pk-2").passkeys.count == 1)
        }
    }

    @Test func theMiddlewareLetsOnlyHearthUsersThrough() async throws {
        let h = try await Harness(liveClock: true)
        try await withAdmin(h) { admin, c in
            let idToken = try #require(
                try await c.signUp(email: "mw@example.com", password: "secret1").string("idToken"))
            let uid = try claims(of: idToken)["sub"]?.stringValue
            let router = Router(context: UserContext.self)
            router.add(middleware: HearthAuthMiddleware(admin: admin))
            router.get("/me") { _, context in context.hearthUser?.uid ?? "nobody" }
            let app = Application(router: router, logger: testLogger)
            try await app.test(.router) { client in
                try await client.execute(uri: "/me", method: .get) { #expect($0.status == .unauthorized) }
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer nope"]) {
                    #expect($0.status == .unauthorized)
                }
                try await client.execute(uri: "/me", method: .get, headers: [.authorization: "Bearer \(idToken)"]) {
                    #expect($0.status == .ok)
                    #expect(String(buffer: $0.body) == uid)
                }
            }
        }
    }
}

struct UserContext: HearthAuthRequestContext {
    var coreContext: CoreRequestContextStorage
    var hearthUser: DecodedIDToken?
    init(source: Source) {
        coreContext = .init(source: source)
    }
}
