import Foundation

/// The audit log: append-only events, read newest first with filters and keyset pages, purged by age.
public protocol AuditStore: Sendable {
    /// Stores `events` in one transaction (the engine batches end-user activity).
    func appendAuditEvents(_ events: [AuditEvent]) async throws

    /// Events matching `query`, newest first (time, then id, descending), at most `query.limit`.
    func auditEvents(_ query: AuditEventQuery) async throws -> [AuditEvent]

    /// Deletes events older than `cutoff`; returns how many.
    func purgeAuditEvents(before cutoff: Date) async throws -> Int

    /// How many events of each of `actions` a scope had per UTC day in [since, until), by the sign-in provider their
    /// diff names (`after.signInProvider`; nil when it names none): the console's Activity page. One aggregate over
    /// the (project, action, time) index, never a scan of the whole log.
    func activityCounts(projectID: String, actions: [String], since: Date, until: Date) async throws -> [ActivityCount]
}

/// A number of events of one action (and provider) on one UTC day.
public struct ActivityCount: Sendable, Equatable, Hashable {
    /// Midnight UTC of the day.
    public var day: Date
    public var action: String
    public var provider: String?
    public var count: Int

    public init(day: Date, action: String, provider: String?, count: Int) {
        self.day = day
        self.action = action
        self.provider = provider
        self.count = count
    }

    public static let millisecondsPerDay: Int64 = 86_400_000
}
