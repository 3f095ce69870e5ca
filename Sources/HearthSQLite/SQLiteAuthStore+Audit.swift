import Foundation
import GRDB
import HearthCore
import HearthStore

/// `AuditStore` on SQLite: one `audit_events` row per event; each filter has an index led by the project that ends
/// in (time, id), so a page is a range scan in the log's order.
extension SQLiteAuthStore {
    public func appendAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await pool.write { db in
            for e in events {
                try db.run(
                    """
                    INSERT INTO audit_events (id, time, actor_kind, actor, client_address, action, project_id,
                      target_uid, outcome, diff)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        e.id, e.time.millisecondsSince1970, e.actorKind, e.actor, e.clientAddress, e.action,
                        e.projectID, e.targetUID, e.outcome, e.diff,
                    ])
            }
        }
    }

    public func auditEvents(_ q: AuditEventQuery) async throws -> [AuditEvent] {
        let (sql, arguments) = Self.auditEventsStatement(q)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                AuditEvent(
                    id: row["id"], time: Date(millisecondsSince1970: row["time"]), actorKind: row["actor_kind"],
                    actor: row["actor"], clientAddress: row["client_address"], action: row["action"],
                    projectID: row["project_id"], targetUID: row["target_uid"], outcome: row["outcome"],
                    diff: row["diff"])
            }
        }
    }

    /// A page of the log as one statement: a range of the index of the query's filter, in the log's order.
    static func auditEventsStatement(_ q: AuditEventQuery) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        func add(_ condition: String, _ values: any DatabaseValueConvertible...) {
            conditions.append(condition)
            for value in values { arguments += [value] }
        }
        if let projectID = q.projectID { add("project_id = ?", projectID) }
        if let action = q.action { add("action = ?", action) }
        if let uid = q.targetUID { add("target_uid = ?", uid) }
        if let since = q.since { add("time >= ?", since.millisecondsSince1970) }
        if let until = q.until { add("time < ?", until.millisecondsSince1970) }
        if let p = q.before {
            add("(time < ? OR (time = ? AND id < ?))", p.time.millisecondsSince1970, p.time.millisecondsSince1970, p.id)
        }
        let order = "ORDER BY time DESC, id DESC LIMIT \(max(0, q.limit))"
        let sql: String
        if let actor = q.actor {
            // Two ranges merged in the log's order: the actor's index, and the target's for events about their actor.
            let own = conditions + ["actor = ?", AuditEvent.actorIndexCondition]
            let aboutThemselves = conditions + ["target_uid = ?", "actor = ?"]
            arguments = arguments + [actor] + arguments + [actor, actor]
            sql = """
                SELECT * FROM audit_events WHERE \(own.joined(separator: " AND "))
                UNION ALL SELECT * FROM audit_events WHERE \(aboutThemselves.joined(separator: " AND ")) \(order)
                """
        } else {
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            sql = "SELECT * FROM audit_events \(filter) \(order)"
        }
        return (sql, arguments)
    }

    public func purgeAuditEvents(before cutoff: Date) async throws -> Int {
        try await pool.write { db in
            try db.run("DELETE FROM audit_events WHERE time < ?", [cutoff.millisecondsSince1970])
            return db.changesCount
        }
    }

    public func activityCounts(projectID: String, actions: [String], since: Date, until: Date) async throws
        -> [ActivityCount]
    {
        guard !actions.isEmpty else { return [] }
        let (sql, arguments) = Self.activityCountsStatement(projectID: projectID, actions: actions, since: since, until: until)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let day: Int64 = row["day"]
                return ActivityCount(
                    day: Date(millisecondsSince1970: day * ActivityCount.millisecondsPerDay), action: row["action"],
                    provider: row["provider"], count: row["count"])
            }
        }
    }

    /// A range of `audit_events_action` (project, action, time) per action; only the activity rows are read.
    static func activityCountsStatement(projectID: String, actions: [String], since: Date, until: Date)
        -> (String, StatementArguments)
    {
        let marks = Array(repeating: "?", count: actions.count).joined(separator: ", ")
        var arguments: StatementArguments = [projectID]
        for action in actions { arguments += [action] }
        arguments += [since.millisecondsSince1970, until.millisecondsSince1970]
        let sql = """
            SELECT time / \(ActivityCount.millisecondsPerDay) AS day, action,
              json_extract(diff, '$.after.signInProvider') AS provider, COUNT(*) AS count
            FROM audit_events
            WHERE project_id = ? AND action IN (\(marks)) AND time >= ? AND time < ?
            GROUP BY day, action, provider
            """
        return (sql, arguments)
    }
}
