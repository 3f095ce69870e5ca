import Foundation
import HearthCore
import HearthEngine
import HearthStore
import Hummingbird

/// The audit log: the admin API's filters (actor, action, uid, a range of days), pages newest first, and the same
/// events as CSV. The diffs come redacted from the engine, so viewers see no secret here either.
struct ConsoleAuditPages: Sendable {
    let console: Console
    var engine: AuthEngine { console.engine }
    static let pageSize = 50
    /// Most events one CSV download holds (the CLI's `hearth audit export` has no limit).
    static let csvLimit = 10_000

    static func row(_ event: AuditEvent) -> HTML {
        let uid: HTML =
            event.targetUID.map {
                "<a href=\"\(ConsoleUserPages.userPath($0, tenant: TenantScope.split(event.projectID).tenant ?? ""))\">\($0)</a>"
            } ?? "—"
        return """
            <tr><td>\(ConsoleUserPages.date(event.time))</td><td>\(event.action)</td><td>\(event.actor) <span class="muted">(\(event.actorKind))</span></td>
            <td>\(uid)</td><td>\(event.outcome)</td><td>\(event.clientAddress ?? "—")</td><td><code>\(event.diff ?? "")</code></td></tr>
            """
    }

    static func table(_ rows: [HTML], id: String) -> HTML {
        """
        <table id="\(id)"><thead><tr><th scope="col">Time</th><th scope="col">Action</th><th scope="col">Actor</th>
        <th scope="col">uid</th><th scope="col">Outcome</th><th scope="col">Address</th><th scope="col">Change</th></tr></thead>
        <tbody>\(rows)</tbody></table>
        """
    }

    struct Filters {
        var actor: String
        var action: String
        var uid: String
        /// The tenant whose events are shown (a tenant user's "all events" link); empty: the project's.
        var tenant: String
        /// `YYYY-MM-DD`, days in UTC; `until` includes its whole day.
        var since: String
        var until: String

        init(_ visit: ConsoleVisit) {
            actor = visit.field("actor")
            action = visit.field("action")
            uid = visit.field("uid")
            tenant = visit.field("tenant")
            since = visit.field("since")
            until = visit.field("until")
        }

        static func day(_ text: String) throws(AuthError) -> Date? {
            guard !text.isEmpty else { return nil }
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3,
                let date = DateComponents(
                    calendar: Calendar(identifier: .gregorian), timeZone: .gmt, year: parts[0], month: parts[1],
                    day: parts[2]
                ).date
            else { throw AuthError(.invalidArgument, "Dates are written YYYY-MM-DD.") }
            return date
        }

        var query: String {
            [("actor", actor), ("action", action), ("uid", uid), ("since", since), ("until", until), ("tenant", tenant)]
                .filter { !$0.1.isEmpty }.map { "\($0)=\(ConsoleUserPages.percentEncoded($1))" }
                .joined(separator: "&")
        }
    }

    func events(_ visit: ConsoleVisit, _ filters: Filters, pageSize: Int, pageToken: String?) async throws
        -> AuditEventPage
    {
        try await engine.auditEvents(
            actor: filters.actor, action: filters.action, uid: filters.uid, since: try Filters.day(filters.since),
            until: try Filters.day(filters.until).map { $0.addingTimeInterval(86_400) }, pageSize: pageSize,
            pageToken: pageToken, origin: try console.scope(visit))
    }

    func show(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let filters = Filters(visit)
        let page = try await events(visit, filters, pageSize: Self.pageSize, pageToken: visit.field("pageToken"))
        let query = filters.query
        let next: HTML =
            page.nextPageToken.map {
                "<p><a id=\"next-page\" href=\"/console/audit?\(query.isEmpty ? "" : query + "&")pageToken=\(ConsoleUserPages.percentEncoded($0))\">Older events</a></p>"
            } ?? ""
        return .page(
            .ok, title: "Audit log",
            """
            <form method="get" action="/console/audit">
            <fieldset><legend>Filters</legend>
            <label for="actor">Actor (service account, console admin, cli or uid)</label><input id="actor" name="actor" type="text" value="\(filters.actor)">
            <label for="action">Action (e.g. user.disable)</label><input id="action" name="action" type="text" value="\(filters.action)">
            <label for="uid">User's uid</label><input id="uid" name="uid" type="text" value="\(filters.uid)">
            \(filters.tenant.isEmpty ? "" : "<input type=\"hidden\" name=\"tenant\" value=\"\(filters.tenant)\">" as HTML)
            <label for="since">From (day, UTC)</label><input id="since" name="since" type="date" value="\(filters.since)">
            <label for="until">To (day, UTC)</label><input id="until" name="until" type="date" value="\(filters.until)">
            </fieldset>
            <button type="submit" id="filter">Show events</button></form>
            <p><a id="csv" href="/console/audit.csv\(query.isEmpty ? "" : "?" + query)">Download these events as CSV</a></p>
            <p class="muted" id="event-summary">\(page.events.isEmpty ? "No events." : "Newest first.")</p>
            <div class="table">\(Self.table(page.events.map(Self.row), id: "events"))</div>
            \(next)
            """)
    }

    func csv(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let filters = Filters(visit)
        var lines = ["time,actorKind,actor,clientAddress,action,projectId,uid,outcome,diff"]
        var token: String?
        repeat {
            let page = try await events(visit, filters, pageSize: 1000, pageToken: token)
            for event in page.events {
                lines.append(
                    [
                        event.time.rfc3339Milliseconds, event.actorKind, event.actor, event.clientAddress ?? "", event.action,
                        event.projectID, event.targetUID ?? "", event.outcome, event.diff ?? "",
                    ].map(Self.csvField).joined(separator: ","))
            }
            token = page.nextPageToken
        } while token != nil && lines.count <= Self.csvLimit
        var headers = ConsoleLayout.headers(setCookies: visit.setCookies)
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"hearth-audit.csv\""
        return .response(
            Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: lines.joined(separator: "\r\n") + "\r\n"))))
    }

    /// RFC 4180 quoting, and a leading `'` before what a spreadsheet would run as a formula (`=`, `+`, `-`, `@`).
    static func csvField(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@\t\r".contains(first) { text = "'" + text }
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
