import Foundation
import HearthCore

/// A user's live session (a refresh-token family), as `GET …/accounts/{uid}/sessions` answers it.
public struct AdminSession: Sendable, Equatable {
    /// Opaque; pass it to `UserManagement.endSession`.
    public var sessionID: String
    public var signInProvider: String
    public var createdAt: Date?
    public var lastUsedAt: Date?
    /// The client's network at sign-in (`203.0.113.0/24`, `2001:db8:1::/48`), never its address.
    public var ipPrefix: String?
    public var userAgent: String?

    init(_ o: JSONValue) {
        sessionID = o["sessionId"]?.stringValue ?? ""
        signInProvider = o["signInProvider"]?.stringValue ?? ""
        createdAt = o["createdAt"]?.stringValue.flatMap(AdminTime.parse)
        lastUsedAt = o["lastUsedAt"]?.stringValue.flatMap(AdminTime.parse)
        ipPrefix = o["ipPrefix"]?.stringValue
        userAgent = o["userAgent"]?.stringValue
    }
}

/// One entry of the audit log.
public struct AdminAuditEvent: Sendable, Equatable {
    public var eventID: String
    public var time: Date?
    /// `serviceAccount`, `consoleAdmin`, `cli`, `emulatorOwner`, `endUser`, `system`.
    public var actorKind: String
    public var actor: String
    public var clientAddress: String?
    /// `user.create`, `session.revoke`, `user.signIn`, …
    public var action: String
    public var tenantID: String?
    public var uid: String?
    /// `success`, or the error code the change failed with.
    public var outcome: String
    /// `{"before": {…}, "after": {…}}` of the fields that changed, secrets redacted.
    public var diff: JSONValue?

    init(_ o: JSONValue) {
        eventID = o["eventId"]?.stringValue ?? ""
        time = o["time"]?.stringValue.flatMap(AdminTime.parse)
        actorKind = o["actorKind"]?.stringValue ?? ""
        actor = o["actor"]?.stringValue ?? ""
        clientAddress = o["clientAddress"]?.stringValue
        action = o["action"]?.stringValue ?? ""
        tenantID = o["tenantId"]?.stringValue
        uid = o["uid"]?.stringValue
        outcome = o["outcome"]?.stringValue ?? ""
        diff = o["diff"]
    }
}

enum AdminTime {
    static func parse(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    static func format(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    static func tenantPath(_ tenantID: String?) -> String {
        tenantID.map { "/tenants/\(escape($0))" } ?? ""
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "&", "="])) ?? text
    }
}

extension UserManagement {
    /// The user's live sessions, oldest first.
    public func sessions(uid: String, tenantID: String? = nil) async throws -> [AdminSession] {
        let reply = try await admin.call(
            .GET, "\(AdminTime.tenantPath(tenantID))/accounts/\(AdminTime.escape(uid))/sessions", api: "/hearth/v1")
        return (reply["sessions"]?.arrayValue ?? []).map(AdminSession.init)
    }

    /// Ends one session: its next refresh fails with TOKEN_EXPIRED; the user's other sessions continue.
    public func endSession(uid: String, sessionID: String, tenantID: String? = nil) async throws {
        _ = try await admin.call(
            .DELETE,
            "\(AdminTime.tenantPath(tenantID))/accounts/\(AdminTime.escape(uid))/sessions/\(AdminTime.escape(sessionID))",
            api: "/hearth/v1")
    }
}

extension HearthAdmin {
    /// A page of the audit log, newest first; pass the returned token for the next page.
    public func auditEvents(
        actor: String? = nil, action: String? = nil, uid: String? = nil, since: Date? = nil, until: Date? = nil,
        pageSize: Int? = nil, pageToken: String? = nil, tenantID: String? = nil
    ) async throws -> (events: [AdminAuditEvent], nextPageToken: String?) {
        var query: [String] = []
        func add(_ name: String, _ value: String?) {
            if let value { query.append("\(name)=\(AdminTime.escape(value))") }
        }
        add("actor", actor)
        add("action", action)
        add("uid", uid)
        add("startTime", since.map(AdminTime.format))
        add("endTime", until.map(AdminTime.format))
        add("pageSize", pageSize.map(String.init))
        add("pageToken", pageToken)
        let path = "\(AdminTime.tenantPath(tenantID))/auditEvents" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let reply = try await call(.GET, path, api: "/hearth/v1")
        return ((reply["events"]?.arrayValue ?? []).map(AdminAuditEvent.init), reply["nextPageToken"]?.stringValue)
    }
}
