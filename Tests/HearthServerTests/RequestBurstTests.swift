import AsyncHTTPClient
import CryptoExtras
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1
import Testing

/// Bursts of a few hundred concurrent requests of every kind against the real binary, on SQLite and on PostgreSQL,
/// after which the server must still answer `/healthz`, `/readyz` and the API.
///
/// A burst of OAuth callbacks, unknown-address sign-ins and `mfaSignIn:finalize` calls used to wedge the SQLite store
/// for good: point reads waited synchronously for one of GRDB's eight readers on the executor's threads, while those
/// readers were held by async reads that could only let go of them on the same threads. Every request then hung.
/// Each request here has a deadline, so a hang fails the test instead of holding the run.
@Suite("Request bursts against the real binary", .serialized, .timeLimit(.minutes(10)))
struct RequestBurstTests {
    static let postgresURL = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"]

    @Test func sqliteServerAnswersAfterBursts() async throws {
        let deployment = try BurstDeployment(databaseURL: nil)
        defer { deployment.remove() }
        try await deployment.run()
    }

    @Test(.enabled(if: postgresURL != nil, "needs scripts/with-postgres"))
    func postgresServerAnswersAfterBursts() async throws {
        let deployment = try BurstDeployment(databaseURL: Self.postgresURL)
        defer { deployment.remove() }
        try await deployment.run()
    }
}

/// One server on a project of its own (SQLite in its own directory, or its own project on the shared PostgreSQL
/// database), with TOTP second factors on, no sign-up or password limits (so every request reaches the store and
/// the hasher), and the development e-mail outbox (so `sendOobCode` writes).
struct BurstDeployment {
    let directory: URL
    let databaseURL: String?
    let project = "burst-" + UUID().uuidString.prefix(8).lowercased()
    /// Requests per burst, and bursts per test: the hang appeared within one to five bursts of about 120.
    let burstSize = 300
    let bursts = 3
    /// How long any one request may take before the server counts as hung: generous, for a loaded 2-core CI
    /// machine; a hung server answers none of them, however long it is given.
    let requestDeadline = TimeAmount.seconds(90)
    /// How long each check after a burst (and the set-up's requests) may take.
    let checkDeadline = TimeAmount.seconds(30)

    init(databaseURL: String?) throws {
        self.databaseURL = databaseURL
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-burst-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config: JSONValue = [
            "email": ["provider": "outbox"],
            // The bursts are about the store and the threads, not scrypt's cost: at the default cost a burst's ~90
            // hashes outlasted the deadline on a loaded machine running other suites beside this one.
            "passwordHashing": ["scrypt": ["logN": 10, "r": 8, "p": 1]],
            "projects": [
                [
                    "projectId": .string(project),
                    "rateLimits": [
                        "signUpsPerIPPerHour": 0, "failedPasswordsPerIP": 0, "failedPasswordsPerAccount": 0,
                    ],
                    "mfa": [
                        "state": "ENABLED",
                        "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 5]]],
                    ],
                ]
            ],
        ]
        try Data(config.jsonText.utf8).write(to: directory.appendingPathComponent("hearth.json"))
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    var options: [String] {
        [
            "--config", directory.appendingPathComponent("hearth.json").path, "--project", project, "--data-dir",
            directory.path,
        ]
            + (databaseURL.map { ["--database-url", $0] } ?? [])
    }

    func run() async throws {
        // A service account of the project, for the admin calls (JWT access: signed here, no token exchange).
        let keyFile = directory.appendingPathComponent("admin.json")
        let (status, output) = try await spawnAndWait(
            ServerProcess.binary.path, ["service-accounts", "create", "--out", keyFile.path] + options)
        try #require(status == 0, "\(output)")
        let admin = try AdminJWT(keyFile: keyFile)

        let server = try ServerProcess(arguments: options + ["--admin-port", "0"])
        defer { server.signal(SIGKILL) }
        let port = try await server.waitUntilListening()
        let operatorPort = try await server.waitForOperatorPort()

        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = burstSize + 16
        configuration.timeout = .init(connect: .seconds(30), read: requestDeadline)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await exercise(
                BurstClient(
                    client: client, port: port, operatorPort: operatorPort, checkDeadline: checkDeadline, admin: admin))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private func exercise(_ http: BurstClient) async throws {
        // An account to sign in to, look up, refresh and reset.
        let email = "burst@example.com"
        let signUp = try await http.post(
            "/v1/accounts:signUp", ["email": .string(email), "password": "burst-password", "returnSecureToken": true])
        try #require(signUp.status == 200, "\(signUp.body)")
        let idToken = try #require(signUp.body["idToken"]?.stringValue)
        let uid = try #require(signUp.body["localId"]?.stringValue)

        for burst in 0..<bursts {
            // A session of this burst's own: the burst's refreshes race on its token, within the grace window.
            let refreshToken = try await signIn(http, email)
            let requests = BurstRequest.mix(
                count: burstSize, project: project, email: email, uid: uid, idToken: idToken, refreshToken: refreshToken
            )
            let outcomes = await withTaskGroup(of: (BurstRequest.Kind, BurstOutcome).self) { group in
                for request in requests {
                    group.addTask { (request.kind, await http.send(request, within: requestDeadline)) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let unanswered = outcomes.filter { $0.1.status == nil }
            let internalErrors = outcomes.filter { $0.1.status == 500 }
            let (unansweredCount, internalErrorCount) = (unanswered.count, internalErrors.count)
            #expect(
                unansweredCount == 0,
                """
                burst \(burst): \(unansweredCount) of \(outcomes.count) requests unanswered within \(requestDeadline): \
                \(BurstOutcome.summary(unanswered))
                """
            )
            #expect(internalErrorCount == 0, "burst \(burst): \(BurstOutcome.summary(internalErrors))")

            // Right after the burst, the process and the API answer.
            let healthz = await http.send(BurstRequest(kind: .healthz, path: "/healthz"), within: checkDeadline)
            #expect(healthz.status == 200, "burst \(burst): /healthz \(healthz)")
            if healthz.status == nil { return }  // hung: the checks below would only wait out their deadlines too
            let readyz = await http.send(BurstRequest(kind: .readyz, path: "/readyz"), within: checkDeadline)
            #expect(readyz.status == 200, "burst \(burst): /readyz \(readyz)")
            let lookup = try await http.post("/v1/accounts:lookup", ["idToken": .string(idToken)])
            #expect(
                lookup.status == 200 && lookup.body["users"]?[0]?["localId"]?.stringValue == uid,
                "burst \(burst): lookup \(lookup.body)")
            let fresh = try await signIn(http, email)
            let refreshed = try await http.post(
                "/v1/token", ["grant_type": "refresh_token", "refresh_token": .string(fresh)])
            #expect(refreshed.status == 200, "burst \(burst): refresh \(refreshed.body)")
            if unansweredCount > 0 { return }  // a hung server would only repeat the same failures
        }
    }

    /// Signs in with the right password; the new session's refresh token.
    private func signIn(_ http: BurstClient, _ email: String) async throws -> String {
        let answer = try await http.post(
            "/v1/accounts:signInWithPassword",
            ["email": .string(email), "password": "burst-password", "returnSecureToken": true])
        return try #require(answer.body["refreshToken"]?.stringValue, "sign-in: \(answer.body)")
    }
}

/// A self-signed service-account JWT (JWT access), as Google's libraries send for Identity Toolkit.
struct AdminJWT: Sendable {
    let token: String

    init(keyFile: URL) throws {
        let key = try JSONValue.parse(Array(try Data(contentsOf: keyFile)))
        let email = try #require(key["client_email"]?.stringValue)
        let kid = try #require(key["private_key_id"]?.stringValue)
        let privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: try #require(key["private_key"]?.stringValue))
        let now = Int(Date().timeIntervalSince1970)
        let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(kid)]
        let claims: JSONValue = [
            "iss": .string(email), "sub": .string(email), "aud": "https://identitytoolkit.googleapis.com/",
            "iat": .number(Double(now)), "exp": .number(Double(now + 3600)),
        ]
        let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(claims.jsonBytes)
        let signature = try privateKey.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        token = input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

/// One request of a burst.
struct BurstRequest: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case signUp, signInGood, signInUnknown, signInWrongPassword, lookup, refresh, oauthCallback, mfaFinalize,
            sendOobCode, adminLookup, adminCreate, healthz, readyz

        var isAdmin: Bool { self == .adminLookup || self == .adminCreate }
    }

    let kind: Kind
    let method: HTTPMethod
    let path: String
    let body: JSONValue?

    init(kind: Kind, method: HTTPMethod = .GET, path: String, body: JSONValue? = nil) {
        self.kind = kind
        self.method = method
        self.path = path
        self.body = body
    }

    /// `count` requests, every kind in turn.
    static func mix(count: Int, project: String, email: String, uid: String, idToken: String, refreshToken: String)
        -> [BurstRequest]
    {
        (0..<count).map { i in
            let kind = Kind.allCases[i % Kind.allCases.count]
            let random = UUID().uuidString.lowercased()
            switch kind {
            case .signUp:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/accounts:signUp",
                    body: [
                        "email": .string("new-\(random)@example.com"), "password": "burst-password",
                        "returnSecureToken": true,
                    ])
            case .signInGood, .signInWrongPassword, .signInUnknown:
                let address = kind == .signInUnknown ? "nobody-\(random)@example.com" : email
                let password = kind == .signInGood ? "burst-password" : "wrong-password"
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/accounts:signInWithPassword",
                    body: ["email": .string(address), "password": .string(password), "returnSecureToken": true])
            case .lookup:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/accounts:lookup", body: ["idToken": .string(idToken)])
            case .refresh:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/token",
                    body: ["grant_type": "refresh_token", "refresh_token": .string(refreshToken)])
            case .oauthCallback:
                return BurstRequest(kind: kind, path: "/__/auth/handler?state=\(random)&code=\(random)")
            case .mfaFinalize:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v2/accounts/mfaSignIn:finalize",
                    body: [
                        "mfaPendingCredential": .string(random + random), "mfaEnrollmentId": .string(random),
                        "totpVerificationInfo": ["verificationCode": "123456"],
                    ])
            case .sendOobCode:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/accounts:sendOobCode",
                    body: ["requestType": "PASSWORD_RESET", "email": .string(email)])
            case .adminLookup:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/projects/\(project)/accounts:lookup",
                    body: ["localId": [.string(uid)]])
            case .adminCreate:
                return BurstRequest(
                    kind: kind, method: .POST, path: "/v1/projects/\(project)/accounts",
                    body: ["email": .string("admin-\(random)@example.com")])
            case .healthz:
                return BurstRequest(kind: kind, path: "/healthz")
            case .readyz:
                return BurstRequest(kind: kind, path: "/readyz")
            }
        }
    }
}

/// A request's status (nil: no answer within the deadline, or the connection failed) and what went wrong.
struct BurstOutcome: Sendable, CustomStringConvertible {
    let status: Int?
    let detail: String

    var description: String { "\(status.map(String.init) ?? "no answer") \(detail)" }

    static func summary(_ outcomes: [(BurstRequest.Kind, BurstOutcome)]) -> String {
        var byKind: [String: Int] = [:]
        for (kind, outcome) in outcomes {
            byKind["\(kind.rawValue) \(outcome.status.map(String.init) ?? outcome.detail)", default: 0] += 1
        }
        return byKind.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }
}

/// Sends burst requests to one server: the API on `port`, `/healthz` and `/readyz` on `operatorPort`.
struct BurstClient: Sendable {
    let client: HTTPClient
    let port: Int
    let operatorPort: Int
    /// The deadline of `post`, the checks' requests.
    let checkDeadline: TimeAmount
    let admin: AdminJWT

    func send(_ request: BurstRequest, within deadline: TimeAmount) async -> BurstOutcome {
        let onOperator = request.kind == .healthz || request.kind == .readyz
        let separator = request.path.contains("?") ? "&" : "?"
        let url =
            "http://127.0.0.1:\(onOperator ? operatorPort : port)\(request.path)"
            + (onOperator || request.kind.isAdmin ? "" : "\(separator)key=burst")
        var http = HTTPClientRequest(url: url)
        http.method = request.method
        if let body = request.body {
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        }
        if request.kind.isAdmin { http.headers.add(name: "Authorization", value: "Bearer \(admin.token)") }
        do {
            let response = try await client.execute(http, deadline: .now() + deadline)
            _ = try await response.body.collect(upTo: 1 << 20)
            return BurstOutcome(status: Int(response.status.code), detail: "")
        } catch {
            return BurstOutcome(status: nil, detail: "\(type(of: error))")
        }
    }

    /// A JSON request to the API, its status and body.
    func post(_ path: String, _ body: JSONValue) async throws -> Answer {
        var http = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)?key=burst")
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.body = .bytes(ByteBuffer(bytes: body.jsonBytes))
        let response = try await client.execute(http, deadline: .now() + checkDeadline)
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), body: try JSONValue.parse(Array(buffer: bytes)))
    }
}
