import Foundation
import HearthCore
import HearthStore
import PostgresNIO

// Statements on a hot path, prepared once per connection. An unnamed statement is parsed and planned by
// PostgreSQL on every execution: for the refresh rotation's CTE that was about 0.6 ms of the database's CPU per
// refresh, more than the statement's own work, on the cores the signatures need (pgbench on this machine: the same
// statement ran at 2,700/s unprepared and 22,000/s prepared). A connection pooler in front of PostgreSQL must
// support protocol-level prepared statements (PgBouncer 1.21+ with max_prepared_statements, or session pooling).

extension PostgresAuthStore {
    /// Runs a prepared statement on any pooled connection, in its own implicit transaction.
    func execute<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [PostgresRow]
    where Statement.Row == PostgresRow {
        try await leasing { [logger] connection in
            var rows: [PostgresRow] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }
}

/// Refresh rotation in one statement and one round trip. `presented` locks the token row, so concurrent uses of one
/// token queue there; each later one gets the row as the earlier one committed it (READ COMMITTED re-reads a locked
/// row), sees `rotated_at` and the sealed successor, and writes nothing. The writing sub-statements apply the
/// rotation rules on that row; the caller reads the outcome from the same row.
struct RotateRefreshToken: PostgresPreparedStatement {
    typealias Row = PostgresRow
    // A new name whenever the SQL changes: a connection keeps what it prepared under a name.
    static let name = "hearth_rotate_refresh_token_1"
    static let sql = """
        WITH presented AS (
          SELECT t.rotated_at, t.sealed_successor, f.*
          FROM refresh_tokens t JOIN refresh_families f ON f.id = t.family_id
          WHERE t.hash = $1 AND (f.project_id = $2
            OR (f.project_id COLLATE "C" >= $3 AND f.project_id COLLATE "C" < $4))
          FOR UPDATE OF t
        ),
        rotated AS (
          UPDATE refresh_tokens SET rotated_at = $5, sealed_successor = $6
          WHERE hash = $1 AND $7
            AND EXISTS (SELECT 1 FROM presented WHERE revoked_at IS NULL AND rotated_at IS NULL)
          RETURNING family_id
        ),
        successor AS (
          INSERT INTO refresh_tokens (hash, family_id, issued_at)
          SELECT $8, family_id, $5 FROM rotated
        ),
        reused AS (
          UPDATE refresh_families
          SET revoked_at = $5, revoke_reason = $10
          WHERE $7 AND id = (
            SELECT id FROM presented WHERE revoked_at IS NULL AND rotated_at IS NOT NULL
              AND NOT ($5 - rotated_at <= $9 AND sealed_successor IS NOT NULL))
        )
        SELECT * FROM presented
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .bytea, .text, .text, .text, .int8, .bytea, .bool, .bytea, .int8, .text,
    ]

    let rotation: RefreshRotation

    func makeBindings() throws -> PostgresBindings {
        let r = rotation
        var bindings = PostgresBindings(capacity: 10)
        try bindings.append(Data(r.presentedHash))
        bindings.append(r.projectID)
        bindings.append(r.tenantPrefix)
        bindings.append(StoreSupport.prefixEnd(r.tenantPrefix))
        bindings.append(r.now.millisecondsSince1970)
        try bindings.append(Data(r.sealedSuccessor))
        bindings.append(r.rotate)
        try bindings.append(Data(r.successorHash))
        bindings.append(Int64(r.graceSeconds) * 1000)
        bindings.append(RefreshRevocationReason.reuseDetected.rawValue)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
