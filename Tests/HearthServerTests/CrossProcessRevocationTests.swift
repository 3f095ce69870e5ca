import Foundation
import HearthCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `hearth serve` processes and the `hearth users` command on the PostgreSQL database `scripts/with-postgres`
/// provides (no cluster of their own, unlike `SharedPostgresTests`, so this runs by default). Each server caches
/// users while its change stamp is unchanged; a revocation committed by another process is seen as soon as
/// PostgreSQL's notification of it reaches the server (usually before the writer has answered; see the bound in
/// docs/ARCHITECTURE.md). Without the notification the cached user would be served for good, and this fails.
@Suite(
    "Revocation across processes on PostgreSQL", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"] != nil, "needs scripts/with-postgres"))
struct CrossProcessRevocationTests {
    static let url = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"] ?? ""

    /// A project of this test's own on the shared database, so nothing another test writes reaches it.
    struct Deployment {
        let directory: URL
        let project = "revocation-" + UUID().uuidString.prefix(8).lowercased()

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-xproc-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let config: JSONValue = [
                "projects": [["projectId": .string(project), "rateLimits": ["signUpsPerIPPerHour": 0]]]
            ]
            try Data(config.jsonText.utf8).write(to: directory.appendingPathComponent("hearth.json"))
        }

        var options: [String] {
            [
                "--database-url", CrossProcessRevocationTests.url, "--config",
                directory.appendingPathComponent("hearth.json").path, "--project", project, "--data-dir", directory.path,
            ]
        }

        func startServer() async throws -> (ServerProcess, Int) {
            let server = try ServerProcess(arguments: options + ["--admin-port", "0"])
            return (server, try await server.waitUntilListening(timeout: .seconds(60)))
        }

        /// A `hearth` command on the same database: a third process.
        func hearth(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await spawnAndWait(ServerProcess.binary.path, arguments + options)
        }
    }

    /// POST with a bounded wait: a hung server fails the test instead of holding the run.
    func call(_ port: Int, _ path: String, _ body: JSONValue) async throws -> Answer {
        try await post(port, path, body, timeout: 10)
    }

    func lookup(_ port: Int, _ idToken: String) async throws -> Answer {
        try await call(port, "/v1/accounts:lookup", ["idToken": .string(idToken)])
    }

    /// Looks the token up on `port` until it is refused with `code`, for at most 2 s: which lookup was the first
    /// refused (1: the very next) and how long after the first one started, or nil when none was.
    func refused(_ port: Int, _ idToken: String, _ code: String) async throws -> String? {
        let started = ContinuousClock.now
        var attempt = 0
        while ContinuousClock.now - started < .seconds(2) {
            attempt += 1
            if try await lookup(port, idToken).errorCode == code {
                return "lookup \(attempt), \(ContinuousClock.now - started)"
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    /// Looks the token up on `port` until it is answered 200 twice in a row (the second from the cache, when the
    /// server caches), within 30 s. The deadline is checked only before another try: under the whole suite's load
    /// one lookup to a server just started can itself take seconds, and a success that arrives late is a success.
    func warm(_ port: Int, _ idToken: String) async throws {
        let deadline = Date().addingTimeInterval(30)
        var successes = 0
        var last: Answer?
        while successes < 2 {
            if let last, Date() > deadline {
                Issue.record("lookup never succeeded twice in a row: \(last.status) \(last.body)")
                return
            }
            let answer = try await lookup(port, idToken)
            successes = answer.status == 200 ? successes + 1 : 0
            last = answer
        }
    }

    @Test func revocationsByOtherProcessesAreSeenByTheNextLookup() async throws {
        let deployment = try Deployment()
        defer { try? FileManager.default.removeItem(at: deployment.directory) }
        let (a, portA) = try await deployment.startServer()
        defer { a.signal(SIGKILL) }
        let (b, portB) = try await deployment.startServer()
        defer { b.signal(SIGKILL) }

        // Disabled by the `hearth users` command: B, which has the user cached, refuses it.
        let first = try await call(portA, "/v1/accounts:signUp", ["returnSecureToken": true])
        let firstID = try #require(first.body["idToken"]?.stringValue)
        let firstUID = try #require(first.body["localId"]?.stringValue)
        try await warm(portB, firstID)
        let disabled = try await deployment.hearth(["users", "disable", firstUID])
        #expect(disabled.status == 0, "\(disabled.output)")
        let afterDisable = try await refused(portB, firstID, "USER_DISABLED")
        #expect(afterDisable != nil)

        // A password change on A moves validSince: B refuses the older ID token. validSince has whole
        // seconds, so the change waits for the second after the sign-up.
        let signUp = try await call(
            portA, "/v1/accounts:signUp",
            ["email": "xproc@example.com", "password": "first-password-1", "returnSecureToken": true])
        let idToken = try #require(signUp.body["idToken"]?.stringValue)
        try await warm(portB, idToken)
        try await Task.sleep(for: .milliseconds(1100))
        try await warm(portB, idToken)
        let change = try await call(
            portA, "/v1/accounts:update",
            ["idToken": .string(idToken), "password": "second-password-2", "returnSecureToken": true])
        #expect(change.status == 200, "\(change.body)")
        let afterChange = try await refused(portB, idToken, "TOKEN_EXPIRED")
        #expect(afterChange != nil)

        // Deleted on A: B answers USER_NOT_FOUND for the new token it has just served from its cache.
        let newID = try #require(change.body["idToken"]?.stringValue)
        try await warm(portB, newID)
        #expect(try await call(portA, "/v1/accounts:delete", ["idToken": .string(newID)]).status == 200)
        let afterDelete = try await refused(portB, newID, "USER_NOT_FOUND")
        #expect(afterDelete != nil)
        print(
            "first refused by the other server: after disable \(afterDisable ?? "none"), after password change"
                + " \(afterChange ?? "none"), after delete \(afterDelete ?? "none")")
    }
}
