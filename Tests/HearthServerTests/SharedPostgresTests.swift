import Foundation
import HearthTestSupport
import HearthCore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A PostgreSQL cluster of one test's own (`scripts/postgres-cluster`, named by `HEARTH_TEST_POSTGRES_CLUSTER`,
/// which `scripts/with-postgres` sets), so the test may stop and start it without disturbing other tests.
struct TestCluster {
    static let script = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_CLUSTER"]
    let directory: String
    let url: String

    static func create() async throws -> TestCluster {
        let directory = String(try await run(["create"]).split(separator: "\n").last ?? "")
        let url = try String(contentsOfFile: directory + "/url", encoding: .utf8)
        return TestCluster(directory: directory, url: url.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `pg_ctl stop -m mode`: `fast` ends every session (57P01 to each), `immediate` is a crash.
    func stop(_ mode: String) async throws { _ = try await Self.run(["stop", directory, mode]) }
    func start() async throws { _ = try await Self.run(["start", directory]) }
    /// Ends every client's connection, as an operator's `pg_terminate_backend` or a failover does.
    func terminateConnections() async throws { _ = try await Self.run(["terminate", directory]) }
    /// Blocking, for `defer`.
    func destroy() { _ = try? ChildProcess.runBlocking(Self.script!, ["destroy", directory]) }

    @discardableResult
    static func run(_ arguments: [String]) async throws -> String {
        let (status, output) = try await spawnAndWait(script!, arguments)
        guard status == 0 else { throw ServerProcess.ProcessError("postgres-cluster \(arguments) failed: \(output)") }
        return output
    }
}

/// Two (or more) `hearth serve` processes on one PostgreSQL database: one service.
struct SharedDatabase {
    let cluster: TestCluster
    let directory: URL

    /// Project `shared` (any API key, no sign-up limit) and `limited` (key `limited-key`, 4 sign-ups per IP).
    static func make() async throws -> SharedDatabase {
        let cluster = try await TestCluster.create()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config: JSONValue = [
            "projects": [
                ["projectId": "shared", "rateLimits": ["signUpsPerIPPerHour": 0]],
                ["projectId": "limited", "apiKeys": ["limited-key"], "rateLimits": ["signUpsPerIPPerHour": 4]],
            ]
        ]
        try Data(config.jsonText.utf8).write(to: directory.appendingPathComponent("hearth.json"))
        return SharedDatabase(cluster: cluster, directory: directory)
    }

    var options: [String] {
        [
            "--database-url", cluster.url, "--config", directory.appendingPathComponent("hearth.json").path,
            "--project", "shared", "--data-dir", directory.path,
        ]
    }

    /// Starts a server on the database; returns it and its API port.
    func startServer() async throws -> (ServerProcess, Int) {
        let server = try ServerProcess(arguments: options + ["--admin-port", "0"])
        return (server, try await server.waitUntilListening())
    }

    /// Runs a `hearth` command (keys, users…) on the database.
    func hearth(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run(ServerProcess.binary.path, arguments + options)
    }

    func destroy() {
        cluster.destroy()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One request's outcome: status and, for errors, the code in Firebase's `error.message` (`CODE` or `CODE : detail`).
struct Answer: Sendable {
    let status: Int
    let body: JSONValue
    /// "200", or the status and the error code ("503 UNAVAILABLE").
    var outcome: String { status == 200 ? "200" : "\(status) \(errorCode ?? "-")" }
    var errorCode: String? {
        body["error"]?["message"]?.stringValue.map { String($0.prefix { $0 != " " }) }
    }
}

func post(
    _ port: Int, _ path: String, _ body: JSONValue, key: String = "any", timeout: TimeInterval = 60
) async throws -> Answer {
    let (status, answer) = try await postJSON(port: port, path: path, body: body, key: key, timeout: timeout)
    return Answer(status: status, body: answer)
}

func refresh(_ port: Int, _ token: String) async throws -> Answer {
    try await post(port, "/v1/token", ["grant_type": "refresh_token", "refresh_token": .string(token)])
}

/// The kids a server publishes (Google's x509 map).
func publishedKids(_ port: Int) async throws -> Set<String> {
    let keys = try await LoopbackHTTP.send(
        .GET, port: port, path: "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
    return Set(try JSONValue.parse(keys.body).objectValue?.keys ?? [:].keys)
}

/// The `kid` in a JWT's header.
func kid(of token: String) -> String? {
    guard let header = token.split(separator: ".").first, let bytes = Base64URL.decode(String(header)) else {
        return nil
    }
    return (try? JSONValue.parse(bytes))?["kid"]?.stringValue
}

/// Runs wherever scripts/with-postgres provides the cluster script. It was opt-in while suites that start processes
/// hung beside it: the PostgreSQL daemons its clusters start inherited descriptors of other tests' Foundation
/// `Process`es and hid their exits. Every child is now started through `ChildProcess`, which passes on none.
@Suite(
    "Two servers, one PostgreSQL", .serialized,
    .enabled(if: TestCluster.script != nil, "needs scripts/with-postgres (HEARTH_TEST_POSTGRES_CLUSTER)"))
struct SharedPostgresTests {
    /// Runs `body` with two servers (A and B, by API port) on one fresh database; all is torn down afterwards.
    func withTwoServers(_ body: (SharedDatabase, _ a: ServerProcess, Int, _ b: ServerProcess, Int) async throws -> Void)
        async throws
    {
        let database = try await SharedDatabase.make()
        defer { database.destroy() }
        let (a, portA) = try await database.startServer()
        defer { a.signal(SIGKILL) }
        let (b, portB) = try await database.startServer()
        defer { b.signal(SIGKILL) }
        try await body(database, a, portA, b, portB)
    }

    @Test func aRefreshTokenRacingOnBothServersGetsOneSuccessor() async throws {
        try await withTwoServers { _, _, portA, _, portB in
            let signUp = try await post(portA, "/v1/accounts:signUp", ["returnSecureToken": true])
            let uid = try #require(signUp.body["localId"]?.stringValue)
            let token = try #require(signUp.body["refreshToken"]?.stringValue)

            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for i in 0..<16 { group.addTask { try await refresh(i % 2 == 0 ? portA : portB, token) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.allSatisfy { $0.status == 200 }, "\(answers.filter { $0.status != 200 }.map(\.body))")
            let successors = Set(answers.compactMap { $0.body["refresh_token"]?.stringValue })
            #expect(successors.count == 1)
            #expect(!successors.contains(token))
            #expect(answers.allSatisfy { $0.body["user_id"]?.stringValue == uid })

            // The one successor goes on working on either server.
            let successor = try #require(successors.first)
            let next = try await refresh(portB, successor)
            #expect(next.status == 200)
            #expect(next.body["refresh_token"]?.stringValue != successor)
        }
    }

    @Test func revocationOnOneServerIsSeenByTheOtherAtOnce() async throws {
        try await withTwoServers { _, _, portA, _, portB in
            let signUp = try await post(
                portA, "/v1/accounts:signUp",
                ["email": "revoke@example.com", "password": "first-password-1", "returnSecureToken": true])
            let oldRefresh = try #require(signUp.body["refreshToken"]?.stringValue)
            let idToken = try #require(signUp.body["idToken"]?.stringValue)

            // A password change on B ends every session of the account…
            let change = try await post(
                portB, "/v1/accounts:update",
                ["idToken": .string(idToken), "password": "second-password-2", "returnSecureToken": true])
            #expect(change.status == 200)
            let newRefresh = try #require(change.body["refreshToken"]?.stringValue)

            // …and A refuses the old session at once, while the new one works there.
            let old = try await refresh(portA, oldRefresh)
            #expect(old.status == 400)
            #expect(old.errorCode == "TOKEN_EXPIRED")
            #expect(try await refresh(portA, newRefresh).status == 200)

            // Deleting the account on A: B knows at once.
            let newID = try #require(change.body["idToken"]?.stringValue)
            #expect(try await post(portA, "/v1/accounts:delete", ["idToken": .string(newID)]).status == 200)
            let afterDelete = try await refresh(portB, newRefresh)
            #expect(afterDelete.status == 400)
            #expect(afterDelete.errorCode == "USER_NOT_FOUND")
        }
    }

    @Test func rateLimitsAreShared() async throws {
        try await withTwoServers { _, _, portA, _, portB in
            var codes: [String] = []
            for i in 0..<8 {
                let answer = try await post(
                    i % 2 == 0 ? portA : portB, "/v1/accounts:signUp", ["returnSecureToken": true], key: "limited-key")
                codes.append(answer.status == 200 ? "OK" : "\(answer.status) \(answer.errorCode ?? "-")")
            }
            // Four sign-ups per IP per hour in all, not four per server.
            #expect(
                codes == Array(repeating: "OK", count: 4)
                    + Array(repeating: "400 TOO_MANY_ATTEMPTS_TRY_LATER", count: 4))
        }
    }

    @Test func aKeyRotatedWithNoLeadIsAcceptedByEveryServerAtOnce() async throws {
        try await withTwoServers { database, _, portA, _, portB in
            let first = try await post(portA, "/v1/accounts:signUp", ["returnSecureToken": true])
            let firstToken = try #require(first.body["idToken"]?.stringValue)
            let oldKid = try #require(kid(of: firstToken))

            let rotation = try await database.hearth(["keys", "rotate", "--lead", "0"])
            #expect(rotation.status == 0, "\(rotation.output)")
            let added = try #require(rotation.output.range(of: #"added key [0-9a-f]+"#, options: .regularExpression))
            let newKid = String(rotation.output[added].dropFirst("added key ".count))
            #expect(newKid != oldKid)

            // B has just reloaded its keys: a forged kid makes it look, and once did put it in a 5 s cooldown.
            var forged = firstToken.split(separator: ".").map(String.init)
            forged[0] = Base64URL.encode(Array(#"{"alg":"RS256","kid":"forged","typ":"JWT"}"#.utf8))
            let forgedLookup = try await post(
                portB, "/v1/accounts:lookup", ["idToken": .string(forged.joined(separator: "."))])
            #expect(forgedLookup.errorCode == "INVALID_ID_TOKEN")

            // A third server, started after the rotation, signs with the new key…
            let (c, portC) = try await database.startServer()
            defer { c.signal(SIGKILL) }
            let signUp = try await post(portC, "/v1/accounts:signUp", ["returnSecureToken": true])
            let token = try #require(signUp.body["idToken"]?.stringValue)
            #expect(kid(of: token) == newKid)

            // …and both older servers accept its tokens at once, then publish and sign with that key.
            for port in [portB, portA] {
                let lookup = try await post(port, "/v1/accounts:lookup", ["idToken": .string(token)])
                #expect(lookup.status == 200, "\(lookup.body)")
                #expect(lookup.body["users"]?[0]?["localId"] == signUp.body["localId"])
                #expect(try await publishedKids(port).isSuperset(of: [oldKid, newKid]))
            }
            let refreshToken = try #require(signUp.body["refreshToken"]?.stringValue)
            let refreshed = try await refresh(portB, refreshToken)
            #expect(kid(of: refreshed.body["id_token"]?.stringValue ?? "") == newKid)
            // Tokens of the retired key still verify (it stays published).
            let old = try await post(portB, "/v1/accounts:lookup", ["idToken": .string(firstToken)])
            #expect(old.status == 200)
        }
    }

    @Test func aServerKilledWithSIGKILLLosesNothing() async throws {
        try await withTwoServers { _, a, portA, _, portB in
            let acknowledged = Acknowledged()
            let burst = Task {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            while !Task.isCancelled {
                                guard
                                    let answer = try? await post(
                                        portA, "/v1/accounts:signUp", ["returnSecureToken": true]),
                                    answer.status == 200, let uid = answer.body["localId"]?.stringValue,
                                    let token = answer.body["idToken"]?.stringValue
                                else { return }
                                acknowledged.add(uid: uid, token: token)
                            }
                        }
                    }
                }
            }
            try await waitUntil("100 acknowledged sign-ups") { acknowledged.count >= 100 }
            try await a.kill(during: burst)
            let acked = acknowledged.all
            var missing = 0
            for (uid, token) in acked {
                let lookup = try await post(portB, "/v1/accounts:lookup", ["idToken": .string(token)])
                if lookup.status != 200 || lookup.body["users"]?[0]?["localId"]?.stringValue != uid { missing += 1 }
            }
            #expect(missing == 0, "\(missing) of \(acked.count) acknowledged sign-ups were lost")
        }
    }

    /// Refresh rotations are group-committed here too: none may be answered before its batch has committed. Each
    /// client's last answered refresh token must still work on the other server after the first is SIGKILLed.
    @Test func answeredRefreshesSurviveSIGKILL() async throws {
        try await withTwoServers { _, a, portA, _, portB in
            let clients = 16
            var tokens: [String] = []
            for _ in 0..<clients {
                let signUp = try await post(portA, "/v1/accounts:signUp", ["returnSecureToken": true])
                tokens.append(try #require(signUp.body["refreshToken"]?.stringValue))
            }
            let latest = LatestTokens(tokens)
            let burst = Task {
                await withTaskGroup(of: Void.self) { group in
                    for client in 0..<clients {
                        group.addTask {
                            while !Task.isCancelled {
                                guard let answer = try? await refresh(portA, latest[client]), answer.status == 200,
                                    let next = answer.body["refresh_token"]?.stringValue
                                else { return }
                                latest.answered(next, client: client)
                            }
                        }
                    }
                }
            }
            try await waitUntil("300 answered refreshes") { latest.answers >= 300 }
            try await a.kill(during: burst)
            var lost = 0
            for client in 0..<clients where try await refresh(portB, latest[client]).status != 200 { lost += 1 }
            #expect(lost == 0, "\(lost) of \(clients) clients' last answered refresh tokens were lost")
        }
    }

    @Test func aPostgreSQLRestartOrCrashAnswers503AndBothServersRecover() async throws {
        try await withTwoServers { database, _, portA, _, portB in
            let seen = Outcomes()
            // Traffic on both servers throughout: sign-ups and refreshes.
            let traffic = Task {
                await withTaskGroup(of: Void.self) { group in
                    for port in [portA, portB, portA, portB] {
                        group.addTask {
                            while !Task.isCancelled {
                                guard
                                    let signUp = try? await post(
                                        port, "/v1/accounts:signUp", ["returnSecureToken": true])
                                else { continue }
                                var answers = [signUp]
                                if let token = signUp.body["refreshToken"]?.stringValue,
                                    let refreshed = try? await refresh(port, token)
                                {
                                    answers.append(refreshed)
                                }
                                seen.list.withLock { $0 += answers.map(\.outcome) }
                            }
                        }
                    }
                }
            }
            func waitForTraffic(_ count: Int) async throws {
                let target = seen.list.withLock { $0.count } + count
                try await waitUntil("\(target) answers") { seen.list.withLock({ $0.count }) >= target }
            }
            try await waitForTraffic(20)

            // `fast` ends every session with 57P01 and refuses new ones while shutting down; `immediate` is a crash.
            for mode in ["fast", "immediate"] {
                try await database.cluster.stop(mode)
                for port in [portA, portB] {
                    let answer = try await post(port, "/v1/accounts:signUp", ["returnSecureToken": true])
                    #expect(answer.status == 503, "\(mode): \(answer.body)")
                    #expect(answer.errorCode == "UNAVAILABLE")
                    #expect(answer.body["error"]?["status"]?.stringValue == "UNAVAILABLE")
                }
                try await database.cluster.start()
                // Both servers reconnect by themselves: no restart, no operator.
                for port in [portA, portB] {
                    var recovered = false
                    for _ in 0..<600 where !recovered {
                        let answer = try await post(port, "/v1/accounts:signUp", ["returnSecureToken": true])
                        #expect(answer.status == 200 || answer.errorCode == "UNAVAILABLE", "\(answer.body)")
                        recovered = answer.status == 200
                        if !recovered { try await Task.sleep(for: .milliseconds(100)) }
                    }
                    #expect(recovered, "server on port \(port) did not recover after a \(mode) stop")
                }
                try await waitForTraffic(20)
            }
            traffic.cancel()
            await traffic.value

            // Every answer was a success or a clear 503, never a 500.
            let outcomes = seen.list.withLock { $0 }
            #expect(outcomes.allSatisfy { $0 == "200" || $0 == "503 UNAVAILABLE" }, "\(Set(outcomes))")
        }
    }

    /// The database ends every connection, again and again, under traffic on both servers: no request hangs (each is
    /// answered 200 or a clear 503 within its 20-s timeout), both serve on, and each stops at once on SIGTERM. A
    /// statement written to a connection that had just closed used to hang its request, its pooled connection and
    /// the server's shutdown (PostgresNIO neither answers nor fails it).
    @Test func connectionsEndedUnderTrafficHangNoRequestAndNoShutdown() async throws {
        try await withTwoServers { database, a, portA, b, portB in
            let seen = Outcomes()
            let stop = Flag()
            // Not cancelled but stopped by the flag: a hung request must run into its timeout and be counted.
            let traffic = Task {
                await withTaskGroup(of: Void.self) { group in
                    for port in Array(repeating: [portA, portB], count: 6).joined() {
                        group.addTask {
                            while !stop.isSet {
                                var answers: [String] = []
                                do {
                                    let signUp = try await post(
                                        port, "/v1/accounts:signUp", ["returnSecureToken": true], timeout: 20)
                                    answers.append(signUp.outcome)
                                    if let token = signUp.body["refreshToken"]?.stringValue {
                                        answers.append(
                                            try await post(
                                                port, "/v1/token",
                                                ["grant_type": "refresh_token", "refresh_token": .string(token)],
                                                timeout: 20
                                            ).outcome)
                                    }
                                } catch {
                                    answers.append("no answer: \(error)")
                                }
                                seen.list.withLock { $0 += answers }
                            }
                        }
                    }
                }
            }
            for _ in 0..<12 {
                try await database.cluster.terminateConnections()
                try await Task.sleep(for: .milliseconds(300))
            }
            stop.set()
            await traffic.value

            let outcomes = seen.list.withLock { $0 }
            #expect(outcomes.count >= 24, "\(outcomes.count) answers")
            #expect(outcomes.allSatisfy { $0 == "200" || $0 == "503 UNAVAILABLE" }, "\(Set(outcomes))")
            for port in [portA, portB] {
                var answer = try await post(port, "/v1/accounts:signUp", ["returnSecureToken": true])
                for _ in 0..<100 where answer.status != 200 {
                    try await Task.sleep(for: .milliseconds(100))
                    answer = try await post(port, "/v1/accounts:signUp", ["returnSecureToken": true])
                }
                #expect(answer.status == 200, "server on port \(port) after the terminations: \(answer.body)")
            }
            for server in [a, b] {
                server.signal(SIGTERM)
                #expect(try await server.child.waitForExit(timeout: .seconds(20)) == 0)
            }
        }
    }
}

/// Outcomes of requests made by concurrent tasks.
final class Outcomes: Sendable {
    let list = Mutex<[String]>([])
}
