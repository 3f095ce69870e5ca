import Foundation

/// The audit log: append-only events, read newest first with filters and keyset pages, purged by age.
public protocol AuditStore: Sendable {
    /// Stores `events` in one transaction (the engine batches end-user activity).
    func appendAuditEvents(_ events: [AuditEvent]) async throws

    /// Events matching `query`, newest first (time, then id, descending), at most `query.limit`.
    func auditEvents(_ query: AuditEventQuery) async throws -> [AuditEvent]

    /// Deletes events older than `cutoff`; returns how many.
    func purgeAuditEvents(before cutoff: Date) async throws -> Int
}
