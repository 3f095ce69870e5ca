import Foundation
import HearthCore
import HearthStore
import HearthTestSupport
import PostgresNIO
import Synchronization
import Testing

@testable import HearthPostgres

/// What only the PostgreSQL store has: URL parsing and migrations shared by several servers.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    /// For tests that wait on the database server: long enough to mean a hang. Under the full suite, creating a
    /// test's database alone took ~40 s (measured 2026-11-23; 0.5 s for the whole test run alone), and with two
    /// minutes one such test timed out on a fresh clone.
    static let hangLimit = TimeLimitTrait.Duration.minutes(5)

    @Test func parsesURLs() throws {
        let full = try PostgresConnectionURL("postgres://hearth:p%40ss%3Aword@db.example.com:6432/auth?sslmode=require")
        #expect(full.configuration.host == "db.example.com")
        #expect(full.configuration.port == 6432)
        #expect(full.configuration.username == "hearth")
        #expect(full.configuration.password == "p@ss:word")
        #expect(full.configuration.database == "auth")
        #expect(full.redacted == "postgres://db.example.com:6432/auth")

        let minimal = try PostgresConnectionURL("postgresql://hearth@127.0.0.1/auth")
        #expect(minimal.configuration.port == 5432)
        #expect(minimal.configuration.password == nil)

        let ipv6 = try PostgresConnectionURL("postgres://hearth@[::1]:5433?sslmode=disable")
        #expect(ipv6.configuration.host == "::1")
        #expect(ipv6.configuration.database == nil)
        #expect(ipv6.redacted == "postgres://[::1]:5433/")

        for mode in ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] {
            _ = try PostgresConnectionURL("postgres://hearth@localhost/auth?sslmode=\(mode)")
        }
    }

    @Test func onlyLoopbackHostsDefaultToPlainText() {
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1"] {
            #expect(PostgresConnectionURL.isLoopback(host), "\(host)")
        }
        for host in ["db.example.com", "127.example.com", "10.0.0.1", "127.0.0.1.nip.io", "::2"] {
            #expect(!PostgresConnectionURL.isLoopback(host), "\(host)")
        }
    }

    @Test(arguments: [
        "mysql://hearth@localhost/auth",
        "postgres:///auth",
        "postgres://localhost/auth",
        "postgres://hearth@localhost/auth?sslmode=always",
        "postgres://hearth@localhost/auth?sslrootcert=/etc/ca.pem",
        "not a url",
    ])
    func refusesURLsItCannotHonour(_ url: String) {
        #expect(throws: PostgresURLError.self) { try PostgresConnectionURL(url) }
    }

    @Test(.enabled(if: Backend.postgresURL != nil))
    func serversStartingTogetherMigrateOnce() async throws {
        try await withTestDatabase(.postgres) { database in
            let url = database.location
            // Every store migrates the empty database at the same moment; without the advisory lock some would
            // fail creating tables another had just created.
            let stores = try await withThrowingTaskGroup(of: PostgresAuthStore.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await connectPostgres(url) }
                }
                return try await group.reduce(into: [PostgresAuthStore]()) { $0.append($1) }
            }
            try await stores[0].migrate()
            try await stores[1].insertUser(Fixture.user())
            #expect(try await stores[2].user(projectID: "p1", uid: "u1") == Fixture.user())
            for store in stores { try await store.shutdown() }
        }
    }

    /// While the database cannot be reached, a request waits `connectionWait` and no longer, then is answered
    /// StoreUnavailable (HTTP 503); its timer is forgotten.
    @Test func aRequestGivesUpWaitingForAnUnreachableDatabase() async throws {
        // Nothing listens on port 1: the pool keeps reconnecting, and would hold the request for its back-off.
        let store = try PostgresAuthStore(
            url: "postgres://hearth@127.0.0.1:1/hearth", logger: testLogger,
            connectionWait: .milliseconds(200))
        await #expect(throws: StoreUnavailable.self) { try await store.countUsers(projectID: "p1") }
        #expect(store.leaseWatch.count == 0)
        try await store.shutdown()
    }

    @Test func theLeaseWatchExpiresOnlyWhatWaitedItsWholeWait() async throws {
        let watch = LeaseWatch(wait: .milliseconds(50))
        let expired = Mutex<[String]>([])
        let forgotten = watch.watch { expired.withLock { $0.append("forgotten") } }
        _ = watch.watch { expired.withLock { $0.append("first") } }
        watch.forget(forgotten)
        try await Task.sleep(for: .milliseconds(20))
        _ = watch.watch { expired.withLock { $0.append("second") } }
        _ = try await eventually { expired.withLock { $0.count == 2 } }
        #expect(expired.withLock { $0 } == ["first", "second"])
        #expect(watch.count == 0)
        // The timer ended with nothing left to watch; the next lease starts another.
        _ = watch.watch { expired.withLock { $0.append("third") } }
        _ = try await eventually { expired.withLock { $0.count == 3 } }
    }

    /// A connection keeps the generic plan of a prepared statement made in its first executions, often on a new and
    /// empty database; the rotation statement must probe the token and family indexes even under that plan, or
    /// every batch scans the whole table once it has grown.
    @Test(.enabled(if: Backend.postgresURL != nil))
    func theRotationStatementProbesTheIndexWhateverItsPlanWasMadeOn() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open() as! PostgresAuthStore
            let plan = try await store.leasing { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "SET plan_cache_mode = force_generic_plan"), logger: testLogger)
                // Prepared on the empty tables, as on a new database.
                for try await _ in try await connection.execute(
                    RotateRefreshTokens(rotations: [Fixture.rotation("r1", to: "r2")]), logger: testLogger)
                {}
                let arrays = "'{}'::bytea[], '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}'"
                var lines: [String] = []
                let explained = try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE \(RotateRefreshTokens.name)(\(arrays), 'x', '{}', '{}')"),
                    logger: testLogger)
                for try await line in explained.decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
            #expect(plan.contains("Index Scan using refresh_tokens_pkey"), "\(plan)")
            #expect(!plan.contains("Seq Scan on refresh_tokens"), "\(plan)")
            #expect(!plan.contains("Seq Scan on refresh_families"), "\(plan)")
            try await store.shutdown()
        }
    }

    /// The rotation statement decides in SQL (so that a batch stays one round trip); it must decide as
    /// `RefreshRotation.decision(for:)` on every branch, including one no store call produces: a used token whose
    /// sealed successor is missing, which is reuse even within the grace. (The conformance suite covers the other
    /// branches; on each, the store refuses an answer where the two disagree.)
    @Test(.enabled(if: Backend.postgresURL != nil))
    func theRotationStatementDecidesAsTheRule() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open() as! PostgresAuthStore
            try await store.insertRefreshFamily(Fixture.family("f1"), tokenHash: Fixture.hash("a1"))
            let first = try await store.rotateRefreshToken(Fixture.rotation("a1", to: "a2"))
            #expect(first == .rotated(Fixture.family("f1")))
            try await store.query(
                "UPDATE refresh_tokens SET sealed_successor = NULL WHERE family_id = 'f1' AND generation = 0")
            let replay = Fixture.rotation("a1", to: "a2b", at: Fixture.t(1))
            let outcome = try await store.rotateRefreshToken(replay)
            #expect(outcome.decision == .reuseDetected)
            let successor = try await store.rotateRefreshToken(
                Fixture.rotation("a2", to: "a3", generation: 1, at: Fixture.t(2)))
            #expect(successor.decision == .revoked)
            try await store.shutdown()
        }
    }

    /// A row on which the statement decided otherwise than the rule is refused, not answered.
    @Test(.enabled(if: Backend.postgresURL != nil))
    func anAnswerTheRuleDisagreesWithIsRefused() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open() as! PostgresAuthStore
            try await store.insertRefreshFamily(Fixture.family("f1"), tokenHash: Fixture.hash("a1"))
            let rows = try await store.query(
                """
                SELECT 1::int8 AS ord, t.rotated_at, t.sealed_successor, f.*, 'kept' AS decision
                FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
                """)
            let row = try #require(rows.first).makeRandomAccess()
            let kept = try PostgresAuthStore.outcome(of: Fixture.rotation("a1", to: "x", rotate: false), presented: row)
            #expect(kept == .kept(Fixture.family("f1")))
            #expect(throws: RotationRuleMismatch.self) {
                try PostgresAuthStore.outcome(of: Fixture.rotation("a1", to: "a2"), presented: row)
            }
            try await store.shutdown()
        }
    }

    @Test(.enabled(if: Backend.postgresURL != nil))
    func shutDownStoreRefusesWork() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await database.open()
            try await store.shutdown()
            await #expect(throws: (any Error).self) { try await store.countUsers(projectID: "p1") }
        }
    }

    /// Waits (polling, at most `timeout`) until `condition` holds; the instant it was first seen to hold.
    func eventually(within timeout: Duration = .seconds(10), line: Int = #line, _ condition: () -> Bool) async throws
        -> ContinuousClock.Instant
    {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(line: line, after: timeout) }
            try await Task.sleep(for: .microseconds(200))
        }
        return .now
    }

    /// Which wait (by its line) gave up, and after how long.
    struct TimedOut: Error {
        var line = 0
        var after = Duration.zero
    }

    func catching(_ body: () async throws -> Void) async -> Result<Void, any Error> {
        do {
            try await body()
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Another server's store (a second store here, with its own listening connection) hears every user change:
    /// its change stamp moves after each commit, and how long after is what docs/ARCHITECTURE.md states.
    @Test(.enabled(if: Backend.postgresURL != nil), .timeLimit(Self.hangLimit))
    func userChangesOnOneStoreMoveAnothersChangeStamp() async throws {
        try await withTestDatabase(.postgres) { database in
            let a = try await connectPostgres(database.location)
            let b = try await connectPostgres(database.location)
            let outcome = await catching {
                _ = try await eventually { a.changeStamp() != nil && b.changeStamp() != nil }
                var user = Fixture.user()
                try await a.insertUser(user)

                // A refresh rotation is no change of a user: the stamps stay, so a refresh can use the cache. A
                // listener that misses a heartbeat under the suite's load gives nil, then a new stamp, for a reason
                // of its own (it failed so in CI): the rule holds if one of three rotations left both stamps as they
                // were, which a rotation that moved them never does.
                try await a.insertRefreshFamily(Fixture.family(), tokenHash: Fixture.hash("r0"))
                var quietRotation = false
                for attempt in 0..<3 where !quietRotation {
                    _ = try await eventually(within: .seconds(30)) { a.changeStamp() != nil && b.changeStamp() != nil }
                    try await Task.sleep(for: .milliseconds(100))
                    let (quietA, quietB) = (a.changeStamp(), b.changeStamp())
                    let rotation = try await a.rotateRefreshToken(
                        RefreshRotation(
                            projectID: "p1", presented: RefreshTokenKey(familyID: "f1", generation: Int64(attempt)),
                            presentedHash: Fixture.hash("r\(attempt)"),
                            successorHash: Fixture.hash("r\(attempt + 1)"),
                            sealedSuccessor: Fixture.sealed("r\(attempt + 1)"), now: Fixture.t(1), graceSeconds: 30,
                            rotate: true))
                    guard case .rotated = rotation else { throw TimedOut() }
                    try await Task.sleep(for: .milliseconds(100))
                    quietRotation = quietA != nil && a.changeStamp() == quietA && b.changeStamp() == quietB
                }
                #expect(quietRotation, "each of three refresh rotations moved a change stamp")

                var afterAnswer: [Duration] = []
                var movedBeforeAnswer = 0
                for round in 0..<20 {
                    // A store whose listener missed its lease under load stops stamping (nil) until it listens
                    // again, as designed; each round starts from two live stamps.
                    _ = try await eventually(within: .seconds(30)) { a.changeStamp() != nil && b.changeStamp() != nil }
                    let before = try #require(b.changeStamp())
                    let ownBefore = try #require(a.changeStamp())
                    user.validSince = Fixture.t(round + 1)
                    if round % 2 == 0 {
                        try await a.updateUser(user)
                        user.version += 1
                    } else {
                        try await a.recordSignIn(projectID: "p1", uid: "u1", at: Fixture.t(round))
                    }
                    let answered = ContinuousClock.now
                    if b.changeStamp().map({ $0 != before }) ?? false { movedBeforeAnswer += 1 }
                    // The writer's own stamp has moved by the time its write returns.
                    #expect(a.changeStamp() != ownBefore)
                    let seen = try await eventually(within: .seconds(5)) {
                        b.changeStamp().map { $0 != before } ?? false
                    }
                    afterAnswer.append(max(.zero, seen - answered))
                }
                #expect(try await b.deleteUser(projectID: "p1", uid: "u1"))
                let sorted = afterAnswer.sorted()
                print(
                    "PostgreSQL change notification: the other store's stamp had moved when the write returned in"
                        + " \(movedBeforeAnswer) of 20 changes; after the answer median \(sorted[sorted.count / 2]),"
                        + " max \(sorted.last!) (200 µs polling)")
            }
            try await a.shutdown()
            try await b.shutdown()
            try outcome.get()
        }
    }

    /// Makes `database` refuse new connections and ends those it has (`allowed: false`), or accept them again.
    static func connections(to database: TestDatabase, allowed: Bool) async throws {
        let name = String(try #require(URLComponents(string: database.location)).path.dropFirst())
        try await TestDatabase.withAdminClient { admin in
            try await admin.query("ALTER DATABASE \(unescaped: name) ALLOW_CONNECTIONS \(unescaped: String(allowed))")
            if !allowed {
                try await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(name)")
            }
        }
    }

    /// While the listening connection is gone the stamp is nil (nothing is cached); once listening again it comes
    /// back as a stamp never given out before, so entries cached before the gap are never used.
    @Test(.enabled(if: Backend.postgresURL != nil), .timeLimit(.minutes(10)))
    func aLostListenerStopsCachingUntilItListensAgain() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await connectPostgres(database.location)
            let outcome = await catching {
                _ = try await eventually(within: .seconds(30)) { store.changeStamp() != nil }
                let before = try #require(store.changeStamp())
                // The database refuses new connections until the gap has been seen: otherwise the listener may be
                // back within the quarter second it pauses, and a test task scheduled late under the full suite's
                // load never sees the nil (it failed so in CI).
                try await Self.connections(to: database, allowed: false)
                _ = try await eventually(within: .seconds(30)) { store.changeStamp() == nil }
                try await Self.connections(to: database, allowed: true)
                // The listener backs off at most 5 s between attempts; the wide bound is for a loaded machine.
                _ = try await eventually(within: .seconds(120)) { store.changeStamp() != nil }
                #expect(try #require(store.changeStamp()) != before)
            }
            try await store.shutdown()
            try outcome.get()
        }
    }

    /// Why the listener never awaits its heartbeat unbounded: PostgresNIO neither answers nor fails a query written to
    /// a connection that has closed (the store's listener hung so for good after `pg_terminate_backend`, in CI).
    /// `waitAtMost` gives up on it; should a PostgresNIO release fail such a query instead, this test says so.
    @Test(.enabled(if: Backend.postgresURL != nil), .timeLimit(.minutes(5)))
    func aQueryOnAClosedConnectionNeverEndsButIsNotAwaitedForGood() async throws {
        let url = try PostgresConnectionURL(try #require(Backend.postgresURL))
        let connection = try await PostgresConnection.connect(
            configuration: url.connectionConfiguration, id: 1, logger: testLogger)
        try await connection.close()
        let ended = await waitAtMost(.seconds(2)) {
            (try? await connection.query("SELECT 1", logger: testLogger).collect()) != nil
        }
        #expect(ended == nil, "the query ended (\(String(describing: ended))): PostgresNIO now fails it")
    }

    /// A transaction whose connection is lost mid-way fails as unavailable, and the store serves on: its ROLLBACK is
    /// not written to the closed connection, where it would never end (holding the request and a pooled connection).
    @Test(.enabled(if: Backend.postgresURL != nil), .timeLimit(.minutes(5)))
    func aTransactionThatLosesItsConnectionFailsAndTheStoreServesOn() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await connectPostgres(database.location)
            let outcome = await catching {
                for _ in 0..<3 {
                    await #expect(throws: StoreUnavailable.self) {
                        try await store.transaction { db in
                            try await db.run("SELECT pg_terminate_backend(pg_backend_pid())")
                        }
                    }
                }
                let rows = try await store.query("SELECT 1")
                #expect(rows.count == 1)
            }
            try await store.shutdown()
            try outcome.get()
        }
    }

    /// A listener reconnecting to a database that refuses it still ends when the store shuts down: a server's
    /// shutdown must not wait on it (it once hung for good on a heartbeat written to a connection that had closed).
    @Test(.enabled(if: Backend.postgresURL != nil), .timeLimit(.minutes(5)))
    func aListenerLockedOutStopsAtShutdown() async throws {
        try await withTestDatabase(.postgres) { database in
            let store = try await connectPostgres(database.location)
            let outcome = await catching {
                _ = try await eventually(within: .seconds(30)) { store.changeStamp() != nil }
                try await Self.connections(to: database, allowed: false)
                _ = try await eventually(within: .seconds(30)) { store.changeStamp() == nil }
                // Let it fail a few reconnections first.
                try await Task.sleep(for: .seconds(1))
            }
            let listener = try #require(store.listenTask.withLock { $0 })
            try await store.shutdown()
            #expect(await PostgresAuthStore.finishes(listener, within: .seconds(5)))
            try await Self.connections(to: database, allowed: true)
            try outcome.get()
        }
    }

    /// A database that falls silent (a partition: sockets open, nothing answered, new connections never completing)
    /// stops caching within the heartbeat's bound; once it answers again the listener is back with a new stamp.
    @Test(.enabled(if: Backend.postgresURL != nil), .timeLimit(.minutes(5)))
    func aDatabaseFallingSilentStopsCachingUntilItAnswersAgain() async throws {
        try await withTestDatabase(.postgres) { database in
            var url = try #require(URLComponents(string: database.location))
            let proxy = try ChildProcess(
                "python3", ["-c", Self.freezingProxy, url.host ?? "127.0.0.1", String(url.port ?? 5432)])
            let outcome = await catching {
                url.port = try #require(
                    await proxy.waitForOutput(timeout: .seconds(30)) { (text: String) -> Int? in
                        text.hasSuffix("\n") ? Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
                    })
                let store = try await connectPostgres(try #require(url.string))
                let outcome = await catching {
                    _ = try await eventually(within: .seconds(30)) { store.changeStamp() != nil }
                    let before = try #require(store.changeStamp())
                    proxy.signal(SIGUSR1)
                    _ = try await eventually(within: .seconds(30)) { store.changeStamp() == nil }
                    // Still silent: a new connection cannot get through, so nothing is cached.
                    try await Task.sleep(for: .seconds(2))
                    #expect(store.changeStamp() == nil)
                    proxy.signal(SIGUSR2)
                    _ = try await eventually(within: .seconds(120)) { store.changeStamp() != nil }
                    #expect(try #require(store.changeStamp()) != before)
                }
                try await store.shutdown()
                try outcome.get()
            }
            proxy.signal(SIGKILL)
            _ = try await proxy.waitForExit()
            try outcome.get()
        }
    }

    /// A TCP relay on loopback that prints its port; SIGUSR1 makes it hold every byte and every new connection (a
    /// silent network), SIGUSR2 lets them through again.
    static let freezingProxy = """
        import signal, socket, sys, threading, time
        silent = threading.Event()
        signal.signal(signal.SIGUSR1, lambda *_: silent.set())
        signal.signal(signal.SIGUSR2, lambda *_: silent.clear())
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGUSR2})  # the test runner blocks them
        def wait():
            while silent.is_set():
                time.sleep(0.02)
        def relay(source, target):
            try:
                while data := source.recv(65536):
                    wait()
                    target.sendall(data)
            except OSError:
                pass
            for end in (source, target):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        def serve(client):
            wait()
            try:
                upstream = socket.create_connection((sys.argv[1], int(sys.argv[2])))
            except OSError:
                client.close()
                return
            threading.Thread(target=relay, args=(client, upstream), daemon=True).start()
            threading.Thread(target=relay, args=(upstream, client), daemon=True).start()
        server = socket.create_server(("127.0.0.1", 0))
        print(server.getsockname()[1], flush=True)
        while True:
            client, _ = server.accept()
            threading.Thread(target=serve, args=(client,), daemon=True).start()
        """
}
