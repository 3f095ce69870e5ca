import GRDB
import PostgresNIO

@testable import HearthPostgres
@testable import HearthSQLite

/// What each database plans for a statement, for the tests that hold a query to its index.
extension SQLiteAuthStore {
    /// `EXPLAIN QUERY PLAN`: one `detail` line per step.
    func queryPlan(_ sql: String, _ arguments: StatementArguments) async throws -> [String] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
    }
}

extension PostgresAuthStore {
    /// `EXPLAIN` with sequential scans off, so a plan shows the index that can serve the statement even on the
    /// handful of rows a test holds.
    func queryPlan(_ statement: PostgresQuery) async throws -> String {
        try await leasing { connection in
            try await connection.query("SET enable_seqscan = off", logger: testLogger)
            let explained = try await connection.query(
                PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds), logger: testLogger)
            var lines: [String] = []
            for try await line in explained.decode(String.self) { lines.append(line) }
            return lines.joined(separator: "\n")
        }
    }
}
