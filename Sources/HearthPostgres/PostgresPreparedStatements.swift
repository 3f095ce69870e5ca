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

/// The refresh rotations of one batch (`PostgresAuthStore+Sessions`) in one statement, one round trip and one
/// transaction. `presented` locks each presented token's row, in key order so that two batches cannot deadlock, and
/// concurrent uses of one token from other servers queue there; each later one gets the row as the earlier one
/// committed it (READ COMMITTED re-reads a locked row), sees `rotated_at` and the sealed successor, and writes
/// nothing. `presented` also takes the rotation rule's decision for each input row (`ord`, its place in the batch) on
/// its token's row as locked: `decisionSQL`, the cases of `RefreshRotation.decision(for:)` in the same order, named by
/// the same words. The writing sub-statements act on that decision alone, and the caller checks each row's decision
/// against the Swift rule's, so the two cannot drift apart unnoticed. All sub-statements see one snapshot, so a batch
/// never holds one token twice: the queue sends the later use in the next batch, which sees this one's writes.
///
/// The lookups are lateral subqueries so that each is an index probe whatever the statistics: a connection keeps the
/// generic plan it made in its first executions, and a join planned while the tables were empty scanned the whole
/// token table on every batch once they had grown (`theRotationStatementProbesTheIndexWhateverItsPlanWasMadeOn`).
struct RotateRefreshTokens: PostgresPreparedStatement {
    typealias Row = PostgresRow
    // A new name whenever the SQL changes: a connection keeps what it prepared under a name.
    static let name = "hearth_rotate_refresh_tokens_4"

    /// `RefreshRotation.decision(for:)` on a locked row (`i` the input, `t` the token, `f` its family); a token that
    /// is not found has no row, which is the rule's `unknown`.
    static let decisionSQL = """
        CASE
            WHEN f.revoked_at IS NOT NULL THEN '\(RefreshRotationDecision.revoked.rawValue)'
            WHEN NOT i.rotate THEN '\(RefreshRotationDecision.kept.rawValue)'
            WHEN t.rotated_at IS NULL THEN '\(RefreshRotationDecision.rotated.rawValue)'
            WHEN i.now - t.rotated_at <= i.grace AND t.sealed_successor IS NOT NULL
              THEN '\(RefreshRotationDecision.alreadyRotated.rawValue)'
            ELSE '\(RefreshRotationDecision.reuseDetected.rawValue)'
          END
        """

    static let sql = """
        WITH input AS (
          SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::bytea[], $7::bool[],
            $8::bytea[], $9::int8[], $11::text[], $12::int8[])
            WITH ORDINALITY AS i(hash, project_id, prefix, prefix_end, now, sealed, rotate, successor, grace, family_id,
              generation, ord)
        ),
        presented AS (
          SELECT i.ord, t.rotated_at, t.sealed_successor, f.*, \(decisionSQL) AS decision
          FROM (SELECT * FROM input ORDER BY family_id COLLATE "C", generation) i
            CROSS JOIN LATERAL (
              SELECT rotated_at, sealed_successor, family_id FROM refresh_tokens t
              WHERE t.family_id = i.family_id AND t.generation = i.generation AND t.hash = i.hash FOR UPDATE
            ) t
            CROSS JOIN LATERAL (SELECT * FROM refresh_families f WHERE f.id = t.family_id OFFSET 0) f
          WHERE f.project_id = i.project_id
            OR (f.project_id COLLATE "C" >= i.prefix AND f.project_id COLLATE "C" < i.prefix_end)
        ),
        rotated AS (
          UPDATE refresh_tokens t SET rotated_at = i.now, sealed_successor = i.sealed
          FROM input i
          WHERE t.family_id = i.family_id AND t.generation = i.generation
            AND EXISTS (
              SELECT 1 FROM presented p
              WHERE p.ord = i.ord AND p.decision = '\(RefreshRotationDecision.rotated.rawValue)'
            )
          RETURNING t.family_id, t.generation, i.successor, i.now
        ),
        successor AS (
          INSERT INTO refresh_tokens (family_id, generation, hash, issued_at)
          SELECT family_id, generation + 1, successor, now FROM rotated
        ),
        reused AS (
          UPDATE refresh_families f
          SET revoked_at = i.now, revoke_reason = $10
          FROM input i JOIN presented p ON p.ord = i.ord
          WHERE f.id = p.id AND p.decision = '\(RefreshRotationDecision.reuseDetected.rawValue)'
        )
        SELECT * FROM presented
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .byteaArray, .textArray, .textArray, .textArray, .int8Array, .byteaArray, .boolArray, .byteaArray, .int8Array,
        .text, .textArray, .int8Array,
    ]

    let rotations: [RefreshRotation]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 12)
        bindings.append(rotations.map { ByteBuffer(bytes: $0.presentedHash) })
        bindings.append(rotations.map(\.projectID))
        bindings.append(rotations.map(\.tenantPrefix))
        bindings.append(rotations.map { StoreSupport.prefixEnd($0.tenantPrefix) })
        bindings.append(rotations.map(\.now.millisecondsSince1970))
        bindings.append(rotations.map { ByteBuffer(bytes: $0.sealedSuccessor) })
        bindings.append(rotations.map(\.rotate))
        bindings.append(rotations.map { ByteBuffer(bytes: $0.successorHash) })
        bindings.append(rotations.map { Int64($0.graceSeconds) * 1000 })
        bindings.append(RefreshRevocationReason.reuseDetected.rawValue)
        bindings.append(rotations.map(\.presented.familyID))
        bindings.append(rotations.map(\.presented.generation))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
