import Foundation
import HearthCore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `hearth` binary, started as a user would start it.
///
/// Its output is collected by a readability handler on a dispatch queue, and waits poll with `Task.sleep`:
/// a blocking read here would hold one of the few cooperative threads that every other test needs.
final class CollectedOutput: Sendable {
    let text = Mutex("")
    let finished = Mutex(false)
}

final class ServerProcess: Sendable {
    let process = Process()
    let output = Pipe()
    private let collected = CollectedOutput()

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["HEARTH_BINARY"] { return URL(fileURLWithPath: path) }
        // The test bundle is built next to the executable (.build/<triple>/<config>/).
        let bundle = Bundle.main.bundleURL
        let beside = bundle.appendingPathComponent("hearth")
        return FileManager.default.isExecutableFile(atPath: beside.path)
            ? beside : bundle.deletingLastPathComponent().appendingPathComponent("hearth")
    }

    init(arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Self.binary
        process.arguments = ["serve", "--port", "0"] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [collected] handle in
            let chunk = handle.availableData
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                collected.finished.withLock { $0 = true }
            } else {
                collected.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        try process.run()
    }

    /// Waits for the "listening" line and returns the port.
    func waitUntilListening(timeout: TimeInterval = 60) async throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = collected.text.withLock { $0 }
            if let range = text.range(of: #"listening on https?://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                return Int(text[range].split(separator: ":").last!)!
            }
            if !process.isRunning && collected.finished.withLock({ $0 }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ProcessError("server did not start: \(collected.text.withLock { $0 })")
    }

    /// Waits until the process has written `text` (a log line), failing if it exits first.
    func waitForOutput(containing text: String, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if collected.text.withLock({ $0.contains(text) }) { return }
            if !process.isRunning && collected.finished.withLock({ $0 }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ProcessError("no '\(text)' in: \(collected.text.withLock { $0 })")
    }

    /// Everything the process wrote, once it has exited and its output is drained.
    func readRemainingLog() async throws -> String {
        while process.isRunning || !collected.finished.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        return collected.text.withLock { $0 }
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    struct ProcessError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

/// Runs a `hearth` subcommand on `dataDir` to completion; its exit status and combined output.
func runHearth(_ args: [String], dataDir: URL) throws -> (status: Int32, output: String) {
    let p = Process()
    let out = Pipe()
    p.executableURL = ServerProcess.binary
    p.arguments = args + ["--data-dir", dataDir.path]
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (p.terminationStatus, text)
}

/// Runs `executable` (a path, or a name looked up in PATH) to completion with posix_spawn and waitpid; its exit
/// status and output (standard output and error). Foundation's `Process` missed the exit of a script that leaves a daemon running
/// (scripts/postgres-cluster) and `waitUntilExit` never returned.
func spawnAndWait(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID()).out").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    guard posix_spawnp(&pid, executable, &actions, nil, argv, environ) == 0 else {
        throw ServerProcess.ProcessError("could not run \(executable)")
    }
    var status: Int32 = 0
    var waited = waitpid(pid, &status, 0)
    while waited == -1, errno == EINTR { waited = waitpid(pid, &status, 0) }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    guard waited == pid else { throw ServerProcess.ProcessError("waitpid(\(pid)): errno \(errno); output: \(text)") }
    // WIFEXITED and WEXITSTATUS, which Swift does not import; killed by a signal counts as failure.
    return (status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), text)
}

func postJSON(port: Int, path: String, body: JSONValue) async throws -> (Int, JSONValue) {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)?key=any")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(body.jsonText.utf8)
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as! HTTPURLResponse).statusCode, try JSONDecoder().decode(JSONValue.self, from: data))
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
        let burst = Task {
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
        while acknowledged.count < 300 { try await Task.sleep(for: .milliseconds(5)) }
        server.signal(SIGKILL)
        await burst.value
        server.process.waitUntilExit()
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
        let burst = Task {
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
        while latest.answers < 300 { try await Task.sleep(for: .milliseconds(5)) }
        server.signal(SIGKILL)
        await burst.value
        server.process.waitUntilExit()

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
        func hearth(_ args: [String]) throws -> String {
            let (status, text) = try runHearth(args, dataDir: dir)
            #expect(status == 0, "\(args): \(text)")
            return text
        }
        let before = try hearth(["keys", "list"])
        #expect(before.components(separatedBy: "signing").count == 2)
        let rotated = try hearth(["keys", "rotate", "--lead", "0"])
        #expect(rotated.contains("added key"))
        let after = try hearth(["keys", "list"])
        #expect(
            after.components(separatedBy: "\n").filter { $0.contains("published") || $0.contains("signing") }.count == 2
        )

        // A server started on the same data publishes both keys.
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()
        defer { server.signal(SIGKILL) }
        let (data, _) = try await URLSession.shared.data(
            from: URL(string: "http://127.0.0.1:\(port)/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")!
        )
        #expect(try JSONValue.parse(Array(data)).objectValue?.count == 2)
    }

    @Test func sigtermStopsTheServerCleanly() async throws {
        let dir = try makeDataDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServerProcess(arguments: arguments(dir))
        let port = try await server.waitUntilListening()
        let (status, _) = try await postJSON(port: port, path: "/v1/accounts:signUp", body: [:])
        #expect(status == 200)
        server.signal(SIGTERM)
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
        let log = try await server.readRemainingLog()
        #expect(log.contains("store: sqlite:"))
        #expect(log.contains("hearth stopped"))
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
