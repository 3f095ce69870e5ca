import Foundation
import HearthCore
import HearthTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `hearth` binary, started as a user would start it (through `ChildProcess`, whose waits all have
/// deadlines and poll with `Task.sleep`, so no cooperative thread blocks on a child).
final class ServerProcess: Sendable {
    let child: ChildProcess

    static var binary: URL { HearthBinary.url }

    init(arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(
            Self.binary.path, ["serve", "--port", "0"] + arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    /// Waits for the "listening" line and returns the port.
    func waitUntilListening(timeout: Duration = .seconds(60)) async throws -> Int {
        let port = try await child.waitForOutput(timeout: timeout) { text -> Int? in
            text.range(of: #"listening on https?://127\.0\.0\.1:(\d+)"#, options: .regularExpression)
                .flatMap { Int(text[$0].split(separator: ":").last!) }
        }
        guard let port else { throw ProcessError("server did not start: \(child.output)") }
        return port
    }

    /// Waits for the operator listener's line and returns its port (`--admin-port 0`).
    func waitForOperatorPort(timeout: Duration = .seconds(60)) async throws -> Int {
        let port = try await child.waitForOutput(timeout: timeout) { text -> Int? in
            text.range(of: #"operator endpoints \([^)]*\) on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression)
                .flatMap { Int(text[$0].split(separator: ":").last!) }
        }
        guard let port else { throw ProcessError("no operator listener: \(child.output)") }
        return port
    }

    /// Waits until the process has written `text` (a log line), failing if it exits first.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(60)) async throws {
        try await child.waitForOutput(containing: text, timeout: timeout)
    }

    /// Waits for the process to exit; its status (the exit code, or 128 + the signal).
    @discardableResult
    func waitForExit() async throws -> Int32 { try await child.waitForExit() }

    /// Everything the process wrote, once it has exited and its output is drained.
    func readRemainingLog() async throws -> String { try await child.remainingOutput() }

    func signal(_ signal: Int32) { child.signal(signal) }

    /// `kill -9` while `burst`'s requests are in flight; returns once the process has exited and `burst` has ended.
    /// Requests still waiting for a connection would retry it until their 60-s deadline, so `burst` is cancelled.
    func kill(during burst: Task<Void, Never>) async throws {
        signal(SIGKILL)
        try await waitForExit()
        burst.cancel()
        await burst.value
    }

    typealias ProcessError = ChildProcess.Failure
}

/// Runs a `hearth` subcommand on `dataDir` to completion; its exit status and combined output.
func runHearth(_ args: [String], dataDir: URL) async throws -> (status: Int32, output: String) {
    try await ChildProcess.run(ServerProcess.binary.path, args + ["--data-dir", dataDir.path])
}

/// Runs `executable` (a path, or a name looked up in PATH) to completion; its exit status and output (standard
/// output and error).
func spawnAndWait(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await ChildProcess.run(executable, arguments)
}

/// POSTs `body` to a server on 127.0.0.1; its status and JSON answer. The wait is bounded by `timeout`: a hung
/// server fails the test instead of holding the run.
func postJSON(
    port: Int, path: String, body: JSONValue, key: String = "any", timeout: TimeInterval = 60
) async throws -> (Int, JSONValue) {
    // Not URLSession: cancelling a task whose URLSession request is finishing deadlocks FoundationNetworking on Linux
    // (the cancel holds the task's status lock while it waits on the session's queue, whose completion waits for
    // that lock), and a test that cancels its traffic once froze the whole test process.
    let reply = try await LoopbackHTTP.send(
        .POST, port: port, path: "\(path)?key=\(key)", headers: [("Content-Type", "application/json")],
        body: Array(body.jsonText.utf8), timeout: timeout)
    return (reply.status, try JSONValue.parse(reply.body))
}

@Suite("The hearth process", .serialized)
struct ServerProcessTests {
    func makeDataDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let config: JSONValue = ["projects": [["projectId": "crash-test", "rateLimits": ["signUpsPerIPPerHour": 0]]]]
        try Data(config.jsonText.utf8).write(to: dir.appendingPathComponent("hearth.json"))
        return dir
    }

    func arguments(_ dir: URL) -> [String] {
        ["--data-dir", dir.path, "--config", dir.appendingPathComponent("hearth.json").path, "--project", "crash-test"]
    }

    @Test func acknowledgedSignUpsSurviveKillDashNine() async throws {
        let dir = try makeDataDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()

        // A burst of sign-ups from 16 clients; the server is killed while they are in flight.
        let acknowledged = Acknowledged()
        let stopped = Flag()
        let burst = Task {
            defer { stopped.set() }
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        while !Task.isCancelled {
                            guard
                                let (status, body) = try? await postJSON(
                                    port: port, path: "/v1/accounts:signUp", body: ["returnSecureToken": true]),
                                status == 200, let uid = body["localId"]?.stringValue,
                                let token = body["idToken"]?.stringValue
                            else { return }
                            acknowledged.add(uid: uid, token: token)
                        }
                    }
                }
            }
        }
        // On a loaded machine 300 sign-ups can take minutes; clients that stopped early end the wait at once.
        try await waitUntil("300 acknowledged sign-ups", timeout: .seconds(600)) {
            acknowledged.count >= 300 || stopped.isSet
        }
        #expect(!stopped.isSet, "every client stopped before the kill: \(acknowledged.count) sign-ups")
        try await server.kill(during: burst)
        let acked = acknowledged.all
        #expect(acked.count >= 300)

        let restarted = try ServerProcess(arguments: arguments(dir))
        let port2 = try await restarted.waitUntilListening()
        defer { restarted.signal(SIGKILL) }
        var missing = 0
        for (uid, token) in acked {
            let (status, body) = try await postJSON(
                port: port2, path: "/v1/accounts:lookup", body: ["idToken": .string(token)])
            guard status == 200, case .array(let users)? = body["users"], users.first?["localId"]?.stringValue == uid
            else {
                missing += 1
                continue
            }
        }
        #expect(missing == 0, "\(missing) of \(acked.count) acknowledged sign-ups were lost")
    }

    /// Rotations of concurrent refreshes are committed together (group commit); none may be answered before its
    /// transaction is committed. Each client's last answered refresh token must still work after `kill -9`: had an
    /// answered rotation been lost, that token would be unknown.
    @Test func answeredRefreshesSurviveKillDashNine() async throws {
        let dir = try makeDataDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()

        let clients = 16
        var tokens: [String] = []
        for _ in 0..<clients {
            let (status, body) = try await postJSON(port: port, path: "/v1/accounts:signUp", body: ["returnSecureToken": true])
            #expect(status == 200)
            tokens.append(try #require(body["refreshToken"]?.stringValue))
        }
        let latest = LatestTokens(tokens)
        let stopped = Flag()
        let burst = Task {
            defer { stopped.set() }
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        while !Task.isCancelled {
                            guard
                                let (status, body) = try? await postJSON(
                                    port: port, path: "/v1/token",
                                    body: ["grantType": "refresh_token", "refreshToken": .string(latest[client])]),
                                status == 200, let next = body["refresh_token"]?.stringValue
                            else { return }
                            latest.answered(next, client: client)
                        }
                    }
                }
            }
        }
        try await waitUntil("300 answered refreshes", timeout: .seconds(600)) {
            latest.answers >= 300 || stopped.isSet
        }
        #expect(!stopped.isSet, "every client stopped before the kill: \(latest.answers) refreshes")
        try await server.kill(during: burst)

        let restarted = try ServerProcess(arguments: arguments(dir))
        let port2 = try await restarted.waitUntilListening()
        defer { restarted.signal(SIGKILL) }
        var lost = 0
        for client in 0..<clients {
            let (status, _) = try await postJSON(
                port: port2, path: "/v1/token",
                body: ["grantType": "refresh_token", "refreshToken": .string(latest[client])])
            if status != 200 { lost += 1 }
        }
        #expect(lost == 0, "\(lost) of \(clients) clients' last answered refresh tokens were lost")
    }

    @Test func keysCanBeRotatedFromTheCommandLine() async throws {
        let dir = try makeDataDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func hearth(_ args: [String]) async throws -> String {
            let (status, text) = try await runHearth(args, dataDir: dir)
            #expect(status == 0, "\(args): \(text)")
            return text
        }
        let before = try await hearth(["keys", "list"])
        #expect(before.components(separatedBy: "signing").count == 2)
        let rotated = try await hearth(["keys", "rotate", "--lead", "0"])
        #expect(rotated.contains("added key"))
        let after = try await hearth(["keys", "list"])
        #expect(
            after.components(separatedBy: "\n").filter { $0.contains("published") || $0.contains("signing") }.count == 2
        )

        // A server started on the same data publishes both keys.
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()
        defer { server.signal(SIGKILL) }
        let keys = try await LoopbackHTTP.send(
            .GET, port: port, path: "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
        #expect(try JSONValue.parse(keys.body).objectValue?.count == 2)
    }

    @Test func theCommandLineIsAuditedAndExportsTheLogWithBufferedSignInsFlushedAtStop() async throws {
        let dir = try makeDataDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        func hearth(_ args: [String]) async throws -> String {
            let (status, text) = try await runHearth(args + ["--config", dir.appendingPathComponent("hearth.json").path, "--project", "crash-test"], dataDir: dir)
            #expect(status == 0, "\(args): \(text)")
            return text
        }
        func exported(_ args: [String] = []) async throws -> [JSONValue] {
            try await hearth(["audit", "export"] + args).split(separator: "\n")
                .filter { $0.hasPrefix("{") }.map { try JSONValue(parsing: String($0)) }
        }
        _ = try await hearth(["users", "create", "--uid", "cli-1", "--email", "cli@example.com"])
        _ = try await hearth(["users", "disable", "cli-1"])
        _ = try await hearth(["keys", "rotate", "--lead", "0"])
        let keyFile = dir.appendingPathComponent("sa.json").path
        _ = try await hearth(["service-accounts", "create", "--out", keyFile])
        let keyID = try #require(try JSONValue(parsing: String(contentsOfFile: keyFile, encoding: .utf8))["private_key_id"]?.stringValue)
        _ = try await hearth(["service-accounts", "revoke", keyID])
        // A sign-up through a server reaches the log when the server stops, though it was buffered.
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()
        let (status, body) = try await postJSON(port: port, path: "/v1/accounts:signUp", body: ["returnSecureToken": true])
        #expect(status == 200)
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)

        let events = try await exported()
        #expect(
            events.map { $0["action"]?.stringValue } == [
                "user.signIn", "user.signUp", "serviceAccount.revoke", "serviceAccount.create", "keys.rotate",
                "user.disable", "user.create",
            ])
        // The key file's private key never reaches the log.
        let privateKey = try #require(try JSONValue(parsing: String(contentsOfFile: keyFile, encoding: .utf8))["private_key"]?.stringValue)
        #expect(!events.map(\.jsonText).joined().contains(String(privateKey.dropFirst(40).prefix(40))))
        #expect(events[2...].allSatisfy { $0["actor"]?.stringValue == "cli" && $0["actorKind"]?.stringValue == "cli" })
        #expect(events[5...].allSatisfy { $0["uid"]?.stringValue == "cli-1" && $0["projectId"]?.stringValue == "crash-test" })
        #expect(events[0]["uid"] == body["localId"] && events[0]["actorKind"]?.stringValue == "endUser")
        let future = Date().addingTimeInterval(3600).rfc3339Milliseconds
        #expect(try await exported(["--since", future]).isEmpty)
        #expect(try await exported(["--until", future]).count == 7)
        let (badStatus, _) = try await runHearth(["audit", "export", "--since", "yesterday"], dataDir: dir)
        #expect(badStatus != 0)
    }

    @Test func sigtermStopsTheServerCleanly() async throws {
        let dir = try makeDataDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()
        let (status, _) = try await postJSON(port: port, path: "/v1/accounts:signUp", body: [:])
        #expect(status == 200)
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
        let log = try await server.readRemainingLog()
        #expect(log.contains("store: sqlite:"))
        #expect(log.contains("hearth stopped"))
        // Both listeners stop gracefully: a clean stop logs no error (the operator's listener used to be cancelled).
        #expect(!log.contains(" error "), "\(log)")
    }
}

final class Acknowledged: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(String, String)] = []
    func add(uid: String, token: String) { lock.withLock { items.append((uid, token)) } }
    var count: Int { lock.withLock { items.count } }
    var all: [(String, String)] { lock.withLock { items } }
}

/// Each client's refresh token as last answered by the server.
final class LatestTokens: @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: [String]
    private var count = 0
    init(_ tokens: [String]) { self.tokens = tokens }
    subscript(client: Int) -> String { lock.withLock { tokens[client] } }
    func answered(_ token: String, client: Int) {
        lock.withLock {
            tokens[client] = token
            count += 1
        }
    }
    var answers: Int { lock.withLock { count } }
}
