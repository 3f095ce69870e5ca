import Foundation
import HearthCore
import HearthStore
import PostgresNIO

/// `AuditStore` on PostgreSQL, as on SQLite. Single statements through `query`: the log changes no user, so
/// appending keeps the user caches' change stamp.
extension PostgresAuthStore {
    public func appendAuditEvents(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        var binds = PostgresBindings(capacity: events.count * 10)
        var rows: [String] = []
        for e in events {
            let base = binds.count
            rows.append("(" + (1...10).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
            binds.append(e.id)
            binds.append(e.time.millisecondsSince1970)
            binds.append(e.actorKind)
            binds.append(e.actor)
            binds.append(e.clientAddress)
            binds.append(e.action)
            binds.append(e.projectID)
            binds.append(e.targetUID)
            binds.append(e.outcome)
            binds.append(e.diff)
        }
        try await query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO audit_events (id, time, actor_kind, actor, client_address, action, project_id,
                      target_uid, outcome, diff)
                    VALUES \(rows.joined(separator: ", "))
                    """, binds: binds))
    }

    public func auditEvents(_ q: AuditEventQuery) async throws -> [AuditEvent] {
        try await query(Self.auditEventsStatement(q)).map { row in
            let row = row.makeRandomAccess()
            return AuditEvent(
                id: try row["id"].decode(String.self),
                time: Date(millisecondsSince1970: try row["time"].decode(Int64.self)),
                actorKind: try row["actor_kind"].decode(String.self), actor: try row["actor"].decode(String.self),
                clientAddress: try row["client_address"].decode(String?.self),
                action: try row["action"].decode(String.self), projectID: try row["project_id"].decode(String.self),
                targetUID: try row["target_uid"].decode(String?.self), outcome: try row["outcome"].decode(String.self),
                diff: try row["diff"].decode(String?.self))
        }
    }

    /// A page of the log as one statement: a range of the index of the query's filter, in the log's order.
    static func auditEventsStatement(_ q: AuditEventQuery) -> PostgresQuery {
        var conditions: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let projectID = q.projectID { conditions.append("project_id = \(bind(projectID))") }
        if let action = q.action { conditions.append("action = \(bind(action))") }
        if let uid = q.targetUID { conditions.append("target_uid = \(bind(uid))") }
        if let since = q.since { conditions.append("time >= \(bind(since.millisecondsSince1970))") }
        if let until = q.until { conditions.append("time < \(bind(until.millisecondsSince1970))") }
        if let p = q.before {
            let time = bind(p.time.millisecondsSince1970)
            conditions.append("(time, id) < (\(time), \(bind(p.id)))")
        }
        let order = "ORDER BY time DESC, id DESC LIMIT \(max(0, q.limit))"
        let sql: String
        if let actor = q.actor {
            // Two ranges merged in the log's order: the actor's index, and the target's for events about their actor.
            let actor = bind(actor)
            let own = conditions + ["actor = \(actor)", AuditEvent.actorIndexCondition]
            let aboutThemselves = conditions + ["target_uid = \(actor)", "actor = \(actor)"]
            sql = """
                (SELECT * FROM audit_events WHERE \(own.joined(separator: " AND ")) \(order))
                UNION ALL (SELECT * FROM audit_events WHERE \(aboutThemselves.joined(separator: " AND ")) \(order))
                \(order)
                """
        } else {
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            sql = "SELECT * FROM audit_events \(filter) \(order)"
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    public func purgeAuditEvents(before cutoff: Date) async throws -> Int {
        try await query("DELETE FROM audit_events WHERE time < \(cutoff.millisecondsSince1970) RETURNING 1").count
    }

    public func activityCounts(projectID: String, actions: [String], since: Date, until: Date) async throws
        -> [ActivityCount]
    {
        guard !actions.isEmpty else { return [] }
        let rows = try await query(
            Self.activityCountsStatement(projectID: projectID, actions: actions, since: since, until: until))
        return try rows.map { row in
            let row = row.makeRandomAccess()
            return ActivityCount(
                day: Date(millisecondsSince1970: try row["day"].decode(Int64.self) * ActivityCount.millisecondsPerDay),
                action: try row["action"].decode(String.self), provider: try row["provider"].decode(String?.self),
                count: Int(try row["count"].decode(Int64.self)))
        }
    }

    /// A range of `audit_events_action` (project, action, time) per action. Only the activity rows are read, and
    /// their diffs are the engine's own JSON, so the cast cannot meet an operator's free text.
    static func activityCountsStatement(projectID: String, actions: [String], since: Date, until: Date)
        -> PostgresQuery
    {
        """
        SELECT time / \(ActivityCount.millisecondsPerDay) AS day, action,
          diff::jsonb #>> '{after,signInProvider}' AS provider, COUNT(*) AS count
        FROM audit_events
        WHERE project_id = \(projectID) AND action = ANY(\(actions))
          AND time >= \(since.millisecondsSince1970) AND time < \(until.millisecondsSince1970)
        GROUP BY 1, 2, 3
        """
    }
}
