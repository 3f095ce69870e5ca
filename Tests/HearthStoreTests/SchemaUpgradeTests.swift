import Foundation
import GRDB
import HearthCore
import HearthStore
import Logging
import PostgresNIO
import Testing

@testable import HearthPostgres
@testable import HearthSQLite

/// Databases written by an earlier Hearth, brought up to date by this one's migrations.
@Suite struct SchemaUpgradeTests {
    /// Sessions stored while tokens were keyed by hash (`hrt1_`, before `v19_refresh_tokens_keyed_by_family`) keep
    /// working after the upgrade: each token is found by its hash, the current one rotates (its successor stored
    /// beside it), an older one is still reuse, and a session the upgrade found revoked stays so.
    @Test(arguments: Backend.available)
    func sessionsStoredBeforeTokensNamedTheirKeyKeepWorking(_ backend: Backend) async throws {
        try await withTestDatabase(backend) { database in
            try await database.migrate(before: "v19_refresh_tokens_keyed_by_family")
            let ms = { (date: Date) in String(date.millisecondsSince1970) }
            let bytes = { (token: String) in database.blobLiteral(Fixture.hash(token)) }
            let sealed = database.blobLiteral(Fixture.sealed("a2"))
            try await database.execute([
                """
                INSERT INTO refresh_families (id, project_id, uid, auth_time, sign_in_provider, created_at)
                VALUES ('f1', 'p1', 'u1', \(ms(Fixture.t(-60))), 'password', \(ms(Fixture.t0))),
                  ('f2', 'p1', 'u2', \(ms(Fixture.t(-60))), 'password', \(ms(Fixture.t0)))
                """,
                // f1: a1 rotated into a2 at t(1), a2 current; f2: b1 current, issued in the same millisecond as a2.
                """
                INSERT INTO refresh_tokens (hash, family_id, issued_at, rotated_at, sealed_successor)
                VALUES (\(bytes("a2")), 'f1', \(ms(Fixture.t(1))), NULL, NULL),
                  (\(bytes("a1")), 'f1', \(ms(Fixture.t0)), \(ms(Fixture.t(1))), \(sealed)),
                  (\(bytes("b1")), 'f2', \(ms(Fixture.t(1))), NULL, NULL)
                """,
            ])

            let store = try await database.open()
            do {
                let f1 = RefreshTokenKey(familyID: "f1", generation: 0)
                #expect(try await store.refreshTokenKey(legacyHash: Fixture.hash("a1")) == f1)
                #expect(try await store.refreshTokenKey(legacyHash: Fixture.hash("a2")) == f1.successor)
                #expect(
                    try await store.refreshTokenKey(legacyHash: Fixture.hash("b1"))
                        == RefreshTokenKey(familyID: "f2", generation: 0))
                #expect(try await store.refreshTokenKey(legacyHash: Fixture.hash("nope")) == nil)

                // Within the grace the old token still gets the successor sealed before the upgrade.
                #expect(
                    try await store.rotateRefreshToken(Fixture.rotation("a1", to: "x", at: Fixture.t(2)))
                        == .alreadyRotated(Fixture.family("f1"), sealedSuccessor: Fixture.sealed("a2")))
                #expect(
                    try await store.rotateRefreshToken(
                        Fixture.rotation("a2", to: "a3", generation: 1, at: Fixture.t(3)))
                        == .rotated(Fixture.family("f1")))
                #expect(
                    try await store.rotateRefreshToken(
                        Fixture.rotation("a3", to: "a4", generation: 2, at: Fixture.t(4)))
                        == .rotated(Fixture.family("f1")))
                #expect(
                    try await store.rotateRefreshToken(Fixture.rotation("b1", to: "b2", family: "f2", at: Fixture.t(4)))
                        == .rotated(Fixture.family("f2", uid: "u2")))

                // After the grace, the legacy token is reuse and ends its session.
                var revoked = Fixture.family("f1")
                revoked.revokedAt = Fixture.t(100)
                revoked.revokeReason = .reuseDetected
                #expect(
                    try await store.rotateRefreshToken(Fixture.rotation("a1", to: "y", at: Fixture.t(100)))
                        == .reuseDetected(revoked))
                #expect(
                    try await store.rotateRefreshToken(
                        Fixture.rotation("a4", to: "a5", generation: 3, at: Fixture.t(101)))
                        == .revoked(revoked))

                // Purged with their rows, the legacy hashes are forgotten too.
                #expect(try await store.purgeRefreshTokens(before: Fixture.t(200)) == 5)
                #expect(try await store.refreshTokenKey(legacyHash: Fixture.hash("a1")) == nil)
                #expect(try await store.refreshTokenKey(legacyHash: Fixture.hash("b1")) == nil)
            } catch {
                try await store.shutdown()
                throw error
            }
            try await store.shutdown()
        }
    }

    /// A log written while the actor's index held every event (before `v20_audit_actor_index_without_own_events`)
    /// reads the same by actor afterwards; challenges issued before `v21_passkey_challenges_in_issue_order` are
    /// gone (their keys have another shape), and challenges issued after it are claimed as ever.
    @Test(arguments: Backend.available)
    func auditLogAndChallengesWrittenBeforeTheirIndexesChanged(_ backend: Backend) async throws {
        try await withTestDatabase(backend) { database in
            try await database.migrate(before: "v20_audit_actor_index_without_own_events")
            let ms = { (seconds: Int) in String(Fixture.t(seconds).millisecondsSince1970) }
            try await database.execute([
                """
                INSERT INTO audit_events (id, time, actor_kind, actor, action, project_id, target_uid, outcome)
                VALUES ('a1', \(ms(1)), 'serviceAccount', 'cli', 'user.update', 'p1', 'u1', 'success'),
                  ('a2', \(ms(2)), 'endUser', 'u1', 'user.signIn', 'p1', 'u1', 'success'),
                  ('a3', \(ms(3)), 'endUser', 'u1', 'user.signIn', 'p1', 'u1', 'success')
                """,
                """
                INSERT INTO passkey_challenges (challenge_hash, project_id, purpose, created_at, expires_at)
                VALUES (\(database.blobLiteral(Fixture.hash("old"))), 'p1', 'sign_in', \(ms(0)), \(ms(300)))
                """,
            ])

            let store = try await database.open()
            do {
                let byActor = try await store.auditEvents(AuditEventQuery(projectID: "p1", actor: "u1", limit: 10))
                #expect(byActor.map(\.id) == ["a3", "a2"])
                #expect(
                    try await store.auditEvents(AuditEventQuery(projectID: "p1", actor: "cli", limit: 10)).map(\.id)
                        == ["a1"])
                #expect(
                    try await store.passkeyChallenge(hash: Fixture.hash("old"), projectID: "p1", now: Fixture.t(1))
                        == nil)
                let issued = PasskeyChallenge.keyPrefix(issuedAt: Fixture.t(1)) + Fixture.hash("new")
                try await store.insertPasskeyChallenge(
                    PasskeyChallenge(
                        challengeHash: issued, projectID: "p1", purpose: .signIn, createdAt: Fixture.t(1),
                        expiresAt: Fixture.t(301)))
                #expect(
                    try await store.consumePasskeyChallenge(hash: issued, projectID: "p1", now: Fixture.t(2))?.purpose
                        == .signIn)
            } catch {
                try await store.shutdown()
                throw error
            }
            try await store.shutdown()
        }
    }
}

extension TestDatabase {
    /// Applies the schema's migrations that come before `version`, as a Hearth of that time would have.
    func migrate(before version: String) async throws {
        switch backend {
        case .sqlite:
            let migrator = SQLiteSchema.migrator
            let index = try #require(migrator.migrations.firstIndex(of: version))
            try migrator.migrate(try DatabasePool(path: location), upTo: migrator.migrations[index - 1])
        case .postgres:
            let index = try #require(PostgresSchema.migrations.firstIndex { $0.version == version })
            var statements = [PostgresSchema.createMigrationsTable]
            for migration in PostgresSchema.migrations[..<index] {
                statements += migration.statements
                statements.append(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES ('\(migration.version)', 0)")
            }
            try await execute(statements)
        }
    }

    /// Runs each statement in turn on the database, outside any store.
    func execute(_ statements: [String]) async throws {
        switch backend {
        case .sqlite:
            try await DatabasePool(path: location).write { db in
                for statement in statements { try db.execute(sql: statement) }
            }
        case .postgres:
            // As `connectPostgres`: a minute, not the server's 5 s, while the whole suite loads the machine.
            let store = try PostgresAuthStore(url: location, logger: testLogger, connectionWait: .seconds(60))
            do {
                for statement in statements { _ = try await store.query(PostgresQuery(unsafeSQL: statement)) }
            } catch {
                try await store.shutdown()
                throw error
            }
            try await store.shutdown()
        }
    }

    /// `bytes` as a literal of the database's SQL.
    func blobLiteral(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        return backend == .sqlite ? "X'\(hex)'" : "'\\x\(hex)'::bytea"
    }
}
