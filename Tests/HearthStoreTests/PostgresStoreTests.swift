import HearthStore
import PostgresNIO
import Testing

@testable import HearthPostgres

/// What only the PostgreSQL store has: URL parsing and migrations shared by several servers.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
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
                    group.addTask { try await PostgresAuthStore.connect(url: url, logger: testLogger) }
                }
                return try await group.reduce(into: [PostgresAuthStore]()) { $0.append($1) }
            }
            try await stores[0].migrate()
            try await stores[1].insertUser(Fixture.user())
            #expect(try await stores[2].user(projectID: "p1", uid: "u1") == Fixture.user())
            for store in stores { try await store.shutdown() }
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
}
