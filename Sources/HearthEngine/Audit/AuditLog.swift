import Foundation
import HearthCore
import HearthStore
import Logging

/// What an audited use case tells the log about its change: the target and the states before and after.
struct AuditChange {
    /// Set by a use case whose action depends on what the request changed (`user.update` or `user.disable`, …).
    var action: String?
    var targetUID: String?
    var before: JSONValue?
    var after: JSONValue?
}

/// A page of the audit log.
public struct AuditEventPage: Sendable {
    public var events: [AuditEvent]
    public var nextPageToken: String?
}

extension AuthEngine {
    /// Runs an administrative change and records it as one audit event, success or failure, when an operator is
    /// bound (`AuditActor.current`: admin routes, the CLI, the console). Without one nothing is recorded: the
    /// change is not an operator's (an end user's own request reaching a shared path).
    /// The event is written before the answer, so an answered change is in the log; a log write that fails is
    /// logged and counted, and does not undo or fail the change it describes.
    func audited<T>(
        _ action: String, scope: String, targetUID: String? = nil, _ body: (inout AuditChange) async throws -> T
    ) async throws -> T {
        var change = AuditChange(targetUID: targetUID)
        guard let actor = AuditActor.current else { return try await body(&change) }
        do {
            let result = try await body(&change)
            await recordAudit(change.action ?? action, actor: actor, scope: scope, change: change, outcome: nil)
            return result
        } catch {
            await recordAudit(change.action ?? action, actor: actor, scope: scope, change: change, outcome: error)
            throw error
        }
    }

    /// The outcome an audit event names: `success`, or the Firebase error code.
    static func auditOutcome(_ error: (any Error)?) -> String {
        guard let error else { return AuditEvent.success }
        if let error = error as? AuthError { return error.code.rawValue }
        if error is StoreUnavailable { return AuthErrorCode.unavailable.rawValue }
        return AuthErrorCode.internalError.rawValue
    }

    func recordAudit(
        _ action: String, actor: AuditActor, scope: String, change: AuditChange, outcome: (any Error)?
    ) async {
        await Self.storeAudit(
            action, actor: actor, scope: scope, change: change, outcome: outcome, store: store, clock: clock,
            random: random, logger: logger)
    }

    /// Stores one operator's change as an event; a failed write is logged and counted, never thrown. Shared with
    /// what changes the store without an engine (`hearth users import`).
    static func storeAudit(
        _ action: String, actor: AuditActor, scope: String, change: AuditChange, outcome: (any Error)?,
        store: any AuditStore, clock: AuthClock, random: SecureRandom, logger: Logger
    ) async {
        let event = AuditEvent(
            id: AuditEventID.next(random: random), time: clock.now(), actorKind: actor.kind.rawValue, actor: actor.id,
            clientAddress: actor.clientAddress, action: action, projectID: scope, targetUID: change.targetUID,
            outcome: auditOutcome(outcome), diff: AuditRedaction.diff(before: change.before, after: change.after))
        do {
            try await store.appendAuditEvents([event])
        } catch {
            AuthMetrics.auditWriteFailed()
            logger.error("audit event not stored", metadata: ["action": "\(action)", "error": "\(error)"])
        }
    }

    /// The console's own sign-ins (`console.signIn`) and refusals (`console.signInFailed`, with the reason's code).
    public func recordConsoleSignIn(email: String, clientAddress: String?, projectID: String, failure: AuthError?)
        async
    {
        await recordAudit(
            failure == nil ? "console.signIn" : "console.signInFailed",
            actor: AuditActor(kind: .consoleAdmin, id: email, clientAddress: clientAddress), scope: projectID,
            change: AuditChange(), outcome: failure)
    }

    /// A page of the audit log, newest first. `pageToken` is the previous page's `nextPageToken`.
    public func auditEvents(
        actor: String? = nil, action: String? = nil, uid: String? = nil, since: Date? = nil, until: Date? = nil,
        pageSize: Int? = nil, pageToken: String? = nil, origin: RequestOrigin
    ) async throws -> AuditEventPage {
        let size = pageSize ?? 100
        guard (1...1000).contains(size) else {
            throw AuthError(.invalidArgument, "pageSize must be between 1 and 1000.")
        }
        var position: AuditEventPosition?
        if let pageToken = pageToken.nonEmpty {
            guard let position0 = Self.auditPosition(pageToken) else {
                throw AuthError(.invalidArgument, "Invalid page token.")
            }
            position = position0
        }
        let events = try await store.auditEvents(
            AuditEventQuery(
                projectID: origin.project.projectID, actor: actor.nonEmpty, action: action.nonEmpty,
                targetUID: uid.nonEmpty, since: since, until: until, before: position, limit: size + 1))
        let page = Array(events.prefix(size))
        let next = events.count > size ? page.last.map(Self.auditPageToken) : nil
        return AuditEventPage(events: page, nextPageToken: next)
    }

    /// Every project's events between `since` and `until`, newest first, in pages of `batchSize` (the CLI's
    /// export); `body` gets each page.
    public func exportAuditEvents(
        since: Date?, until: Date?, batchSize: Int = 1000, _ body: ([AuditEvent]) async throws -> Void
    ) async throws {
        var position: AuditEventPosition?
        while true {
            let events = try await store.auditEvents(
                AuditEventQuery(projectID: nil, since: since, until: until, before: position, limit: batchSize))
            if events.isEmpty { return }
            try await body(events)
            if events.count < batchSize { return }
            position = events.last.map { AuditEventPosition(time: $0.time, id: $0.id) }
        }
    }

    static func auditPageToken(_ event: AuditEvent) -> String {
        Base64URL.encode(Array("\(event.time.millisecondsSince1970):\(event.id)".utf8))
    }

    static func auditPosition(_ token: String) -> AuditEventPosition? {
        guard let bytes = Base64URL.decode(token) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":"), let ms = Int64(text[..<colon]) else { return nil }
        let id = String(text[text.index(after: colon)...])
        guard !id.isEmpty else { return nil }
        return AuditEventPosition(time: Date(millisecondsSince1970: ms), id: id)
    }
}

extension AuditEvent {
    /// The event as the admin API answers it and `hearth audit export` writes it (one per line).
    public var json: JSONValue {
        let (project, tenant) = TenantScope.split(projectID)
        var fields: [String: JSONValue] = [
            "eventId": .string(id), "time": .string(time.rfc3339Milliseconds), "actorKind": .string(actorKind),
            "actor": .string(actor), "action": .string(action), "projectId": .string(project),
            "outcome": .string(outcome),
        ]
        fields["clientAddress"] = clientAddress.map(JSONValue.string)
        fields["tenantId"] = tenant.map(JSONValue.string)
        fields["uid"] = targetUID.map(JSONValue.string)
        fields["diff"] = diff.flatMap { try? JSONValue(parsing: $0) }
        return .object(fields)
    }
}

/// Audit event ids sort by time: events of one millisecond (one request's sign-up and sign-in) keep the order they
/// happened in within a process; the random part keeps processes apart.
enum AuditEventID {
    static func next(random: SecureRandom) -> String { random.timeOrderedID(randomBytes: 8) }
}
