import Foundation
import HearthCore
import HearthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `/readyz` when the store stops answering: PostgreSQL frozen with SIGSTOP (connections stay open, nothing answers,
/// as with a hung database host). The readiness probe must answer 503 within its deadline, the watchdog must say so
/// once in the log, and readiness must come back once the database answers again. Before the watchdog, `/readyz`
/// waited on the frozen database as long as its caller did.
@Suite(
    "Readiness when the store stops answering", .serialized, .timeLimit(.minutes(5)),
    .enabled(if: TestCluster.script != nil, "needs scripts/with-postgres (HEARTH_TEST_POSTGRES_CLUSTER)"))
struct ReadinessWatchdogTests {
    @Test func readyzFailsWhileThePostgresServerIsFrozenAndRecovers() async throws {
        let database = try await SharedDatabase.make()
        defer { database.destroy() }
        let server = try ServerProcess(arguments: database.options + ["--admin-port", "0"])
        defer { server.signal(SIGKILL) }
        _ = try await server.waitUntilListening()
        let operatorPort = try await server.waitForOperatorPort()
        #expect(try await readyz(operatorPort).status == 200)

        let frozen = try PostgresProcesses(clusterDirectory: database.cluster.directory)
        frozen.signal(SIGSTOP)
        var thawed = false
        defer { if !thawed { frozen.signal(SIGCONT) } }

        // Bounded well above the watchdog's 3 s: a hang here is the failure this test is about.
        let stuck = try await readyz(operatorPort, timeout: 20)
        #expect(stuck.status == 503)
        #expect(stuck.body["problems"]?[0]?.stringValue?.hasPrefix("store unreachable") == true, "\(stuck.body)")
        try await server.waitForOutput(containing: "watchdog: store unreachable", timeout: .seconds(30))

        frozen.signal(SIGCONT)
        thawed = true
        let deadline = ContinuousClock.now + .seconds(60)
        var status: Int?
        while ContinuousClock.now < deadline {
            status = try? await readyz(operatorPort).status
            if status == 200 { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(status == 200, "/readyz after the database answers again")
        try await server.waitForOutput(containing: "watchdog: the store answers again", timeout: .seconds(30))
    }

    func readyz(_ port: Int, timeout: TimeInterval = 10) async throws -> Answer {
        let reply = try await LoopbackHTTP.send(.GET, port: port, path: "/readyz", timeout: timeout)
        return Answer(status: reply.status, body: try JSONValue.parse(reply.body))
    }
}

/// A test cluster's postmaster and its children (backends, background workers), by process id.
struct PostgresProcesses {
    let ids: [Int32]

    init(clusterDirectory: String) throws {
        let pidFile = try String(contentsOfFile: clusterDirectory + "/data/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(pidFile.split(separator: "\n").first.flatMap { Int32($0) })
        var children: [Int32] = []
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let id = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { continue }
            // Fields after the name: state, then the parent's id.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { children.append(id) }
        }
        ids = children + [postmaster]
    }

    func signal(_ signal: Int32) {
        for id in ids { kill(id, signal) }
    }
}
