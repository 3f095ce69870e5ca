import Foundation
import HearthPostgres
import HearthSQLite
import HearthStore
import PostgresNIO
import Testing

/// A store implementation the conformance suite runs against: SQLite always, PostgreSQL when
/// `HEARTH_TEST_POSTGRES_URL` names a database whose user may create databases (`scripts/with-postgres` sets one up).
enum Backend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    static let postgresURL = ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES_URL"]
    static let available: [Backend] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    var testDescription: String { rawValue }
}

let testLogger: Logger = {
    var logger = Logger(label: "hearth.store-tests")
    logger.logLevel = .warning
    return logger
}()

/// Runs `body` with a store on a new, empty database of `backend`; `openAnother` opens one more store on the
/// same database, as a second server process would. Every store is shut down afterwards.
func withFreshStore(
    _ backend: Backend,
    _ body: (_ store: any AuthStore, _ openAnother: () async throws -> any AuthStore) async throws -> Void
) async throws {
    try await withTestDatabase(backend) { database in
        var stores = [try await database.open()]
        let outcome: Result<Void, any Error>
        do {
            try await body(stores[0]) {
                let store = try await database.open()
                stores.append(store)
                return store
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        for store in stores { try await store.shutdown() }
        try outcome.get()
    }
}

/// Runs `body` with a new, empty database of `backend`, deleted afterwards whether `body` succeeded or not.
func withTestDatabase(_ backend: Backend, _ body: (TestDatabase) async throws -> Void) async throws {
    let database = try await TestDatabase.create(backend)
    let outcome: Result<Void, any Error>
    do {
        try await body(database)
        outcome = .success(())
    } catch {
        outcome = .failure(error)
    }
    try await database.destroy()
    try outcome.get()
}

/// A store on the PostgreSQL database at `url`, given a minute rather than the server's 15 s to answer and migrate:
/// the whole test run migrates dozens of fresh databases at once.
func connectPostgres(_ url: String) async throws -> PostgresAuthStore {
    try await PostgresAuthStore.connect(url: url, logger: testLogger, timeout: .seconds(60))
}

/// A SQLite store on a file of its own in the temporary directory while `body` runs (given the store and the file's
/// path), then shut down and removed with its log and WAL index: for tests of what only the SQLite store does.
func withSQLiteStore(_ body: (SQLiteAuthStore, String) async throws -> Void) async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(UUID()).sqlite").path
    defer {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
    let store = try SQLiteAuthStore(path: path)
    // Not shut down when `body` throws: a failed test may still hold the connections that closing would wait for.
    try await body(store, path)
    try await store.shutdown()
}

/// One throwaway database: a file in its own temporary directory, or a PostgreSQL database with a random name.
struct TestDatabase {
    let backend: Backend
    /// The SQLite file path or the PostgreSQL URL.
    let location: String

    static func create(_ backend: Backend) async throws -> TestDatabase {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return TestDatabase(backend: backend, location: directory.appendingPathComponent("hearth.sqlite").path)
        case .postgres:
            let name = "hearth_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await withAdminClient { try await $0.query("CREATE DATABASE \(unescaped: name)") }
            var url = URLComponents(string: Backend.postgresURL!)!
            url.path = "/" + name
            return TestDatabase(backend: backend, location: url.string!)
        }
    }

    func open() async throws -> any AuthStore {
        switch backend {
        case .sqlite: try SQLiteAuthStore(path: location)
        case .postgres: try await connectPostgres(location)
        }
    }

    func destroy() async throws {
        switch backend {
        case .sqlite:
            try FileManager.default.removeItem(at: URL(fileURLWithPath: location).deletingLastPathComponent())
        case .postgres:
            let name = URLComponents(string: location)!.path.dropFirst()
            // FORCE: the server may not yet have noticed that the stores' connections closed.
            try await Self.withAdminClient {
                try await $0.query("DROP DATABASE IF EXISTS \(unescaped: String(name)) WITH (FORCE)")
            }
        }
    }

    /// A client on the database `HEARTH_TEST_POSTGRES_URL` names, for creating and dropping test databases.
    static func withAdminClient(_ body: (PostgresClient) async throws -> Void) async throws {
        let url = try PostgresConnectionURL(Backend.postgresURL!)
        let client = PostgresClient(configuration: url.configuration, backgroundLogger: testLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // At once, so that the client counts as running before `body` leases (it logs a warning otherwise).
            group.addImmediateTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }
}
