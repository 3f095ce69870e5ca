import Foundation
import HearthCore
import HearthEngine
import HearthStore
import Hummingbird

/// Hearth's operator API over sessions and the audit log, for admins only (service-account credentials), each
/// also under `/tenants/{tenant}`:
/// - `GET /hearth/v1/projects/{p}/accounts/{uid}/sessions`: the user's live sessions;
/// - `DELETE /hearth/v1/projects/{p}/accounts/{uid}/sessions/{sessionId}`: ends that one;
/// - `GET /hearth/v1/projects/{p}/auditEvents`: the audit log, newest first (`actor`, `action`, `uid`, `startTime`,
///   `endTime` in RFC 3339, `pageSize`, `pageToken`).
extension AuthRoutes {
    func registerAuditRoutes(on router: HearthRouter) {
        for path in Self.scoped("/hearth/v1/projects/{project}/accounts/{uid}/sessions") {
            router.get(path) { request, context in
                let uid = try context.parameters.require("uid")
                return try await respond(request, context, hasProject: true, nil) { _, origin in
                    let sessions = try await engine.sessions(of: uid, origin: origin)
                    return ["sessions": .array(sessions.map(Self.sessionJSON))]
                }
            }
        }
        for path in Self.scoped("/hearth/v1/projects/{project}/accounts/{uid}/sessions/{session}") {
            router.delete(path) { request, context in
                let uid = try context.parameters.require("uid")
                let session = try context.parameters.require("session")
                return try await respond(request, context, hasProject: true, nil) { _, origin in
                    try await engine.endSession(session, of: uid, origin: origin)
                    return [:]
                }
            }
        }
        for path in Self.scoped("/hearth/v1/projects/{project}/auditEvents") {
            router.get(path) { request, context in
                try await respond(request, context, hasProject: true, nil) { wire, origin in
                    let page = try await engine.auditEvents(
                        actor: try wire.string("actor"), action: try wire.string("action"), uid: try wire.string("uid"),
                        since: try Self.time(wire, "startTime"), until: try Self.time(wire, "endTime"),
                        pageSize: try wire.int("pageSize").map { Int(clamping: $0) },
                        pageToken: try wire.string("pageToken"), origin: origin)
                    return .compact([
                        "events": .array(page.events.map(\.json)),
                        "nextPageToken": .text(page.nextPageToken),
                    ])
                }
            }
        }
    }

    static func time(_ wire: WireRequest, _ name: String) throws(AuthError) -> Date? {
        guard let text = try wire.string(name), !text.isEmpty else { return nil }
        guard
            let date = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text))
        else { throw AuthError(.invalidArgument, "\(name) must be an RFC 3339 time.") }
        return date
    }

    static func sessionJSON(_ s: SessionSummary) -> JSONValue {
        .compact([
            "sessionId": .string(s.sessionID), "signInProvider": .string(s.signInProvider),
            "createdAt": .string(s.createdAt.rfc3339Milliseconds),
            "lastUsedAt": .string(s.lastUsedAt.rfc3339Milliseconds), "ipPrefix": .text(s.ipPrefix),
            "userAgent": .text(s.userAgent),
        ])
    }
}
