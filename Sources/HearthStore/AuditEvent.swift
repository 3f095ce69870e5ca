import Foundation

/// One entry of the audit log: an administrative change (by a service account, a console admin, the CLI) or an
/// end user's sign-in activity, with its outcome. Secrets never reach it: `diff` is redacted by the engine before
/// it is stored.
public struct AuditEvent: Sendable, Equatable {
    /// Random, unique; with `time` the key of the log's order and pages.
    public var id: String
    public var time: Date
    /// `AuditActor.Kind`'s raw value: `serviceAccount`, `consoleAdmin`, `cli`, `endUser`, …
    public var actorKind: String
    /// A service-account e-mail, a console admin's e-mail, `cli`, an end user's uid.
    public var actor: String
    public var clientAddress: String?
    /// A stable dotted name: `user.create`, `session.revoke`, `user.signIn`, …
    public var action: String
    /// The scope key (`TenantScope`): the project, or `<project>/tenants/<tenant>`.
    public var projectID: String
    public var targetUID: String?
    /// `success`, or the Firebase error code the change failed with.
    public var outcome: String
    /// `{"before": {…}, "after": {…}}` of what changed, as JSON text, redacted.
    public var diff: String?

    public init(
        id: String, time: Date, actorKind: String, actor: String, clientAddress: String?, action: String,
        projectID: String, targetUID: String?, outcome: String, diff: String?
    ) {
        self.id = id
        self.time = time
        self.actorKind = actorKind
        self.actor = actor
        self.clientAddress = clientAddress
        self.action = action
        self.projectID = projectID
        self.targetUID = targetUID
        self.outcome = outcome
        self.diff = diff
    }

    public static let success = "success"

    /// The events `audit_events_actor` holds, in both stores' SQL: those not about their own actor. An end user's
    /// own sign-in (actor and target the same uid) is found through the target's index instead, so the log's
    /// busiest writes go into one per-user index rather than two; a query by actor reads both (`actor = ?` and this,
    /// merged with `target_uid = ? AND actor = ?`). The stores' migrations spell it out as written here.
    public static let actorIndexCondition = "(target_uid IS NULL OR actor <> target_uid)"
}

/// Which audit events to read: newest first, after an optional keyset position.
public struct AuditEventQuery: Sendable, Equatable {
    /// The scope key; nil reads every project's (the CLI's export).
    public var projectID: String?
    public var actor: String?
    public var action: String?
    public var targetUID: String?
    /// Inclusive.
    public var since: Date?
    /// Exclusive.
    public var until: Date?
    /// Only events strictly older than this (time, id), the last one of the previous page.
    public var before: AuditEventPosition?
    public var limit: Int

    public init(
        projectID: String?, actor: String? = nil, action: String? = nil, targetUID: String? = nil,
        since: Date? = nil, until: Date? = nil, before: AuditEventPosition? = nil, limit: Int
    ) {
        self.projectID = projectID
        self.actor = actor
        self.action = action
        self.targetUID = targetUID
        self.since = since
        self.until = until
        self.before = before
        self.limit = limit
    }
}

/// An event's place in the log's order (time, then id, both descending).
public struct AuditEventPosition: Sendable, Equatable {
    public var time: Date
    public var id: String

    public init(time: Date, id: String) {
        self.time = time
        self.id = id
    }
}
