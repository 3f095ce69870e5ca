import Foundation
import HearthCore
import HearthEngine
import Hummingbird

/// Development: the latest SMS codes and e-mail action links from the development outbox (what the emulator's
/// `verificationCodes` and `oobCodes` routes list), and in emulator mode "Clear all data" (the emulator's
/// `DELETE …/accounts` use case, run as the signed-in admin so the audit log names them).
///
/// The page exists only in emulator mode or when SMS or e-mail go to the outbox; "Clear all data" only in emulator
/// mode. Outside emulator mode an outbox code is a live credential, so viewers see it masked.
struct ConsoleDevelopmentPages: Sendable {
    let console: Console
    var engine: AuthEngine { console.engine }
    /// The latest messages of each kind shown.
    static let shown = 20

    func show(_ visit: ConsoleVisit) async throws -> Console.Answer {
        guard console.hasDevelopmentPage else { return .response(ConsoleLayout.plain(.notFound, "Not found.\n")) }
        let notice: HTML =
            visit.field("done") == "cleared"
            ? "<p class=\"notice\" role=\"status\" id=\"notice\">Every account of the project was deleted.</p>" : ""
        return .page(.ok, title: "Development", try await body(visit, message: notice))
    }

    func body(_ visit: ConsoleVisit, message: HTML) async throws -> HTML {
        let projectID = try console.origin(visit).project.projectID
        let canClear = engine.isEmulator && visit.admin?.role == .admin
        let revealed = engine.isEmulator || visit.admin?.role == .admin
        func secret(_ text: String) -> HTML { revealed ? "<code>\(text)</code>" : "<span class=\"muted\">hidden from viewers</span>" }

        var smsRows: [HTML] = []
        for m in try await engine.smsOutbox(projectID: projectID).suffix(Self.shown).reversed() {
            let live = try await engine.livePhoneSession(m.sessionInfo)
            smsRows.append(
                "<tr><td>\(ConsoleUserPages.date(m.sentAt))</td><td>\(m.phoneNumber)</td><td>\(secret(m.code))</td><td>\(live ? "Live" : "Used or expired")</td></tr>"
            )
        }
        var emailRows: [HTML] = []
        for m in try await engine.emailOutbox(projectID: projectID).suffix(Self.shown).reversed() {
            let live = try await engine.liveActionCode(m.oobCode, projectID: projectID) != nil
            emailRows.append(
                "<tr><td>\(ConsoleUserPages.date(m.sentAt))</td><td>\(m.email)</td><td>\(m.kind.rawValue)</td><td>\(secret(m.oobLink))</td><td>\(live ? "Live" : "Used or expired")</td></tr>"
            )
        }
        let mode: HTML =
            engine.isEmulator
            ? "<p id=\"mode\">This server runs in emulator mode: nothing is sent, and every code and link is kept here (and at <code>/emulator/v1</code>).</p>"
            : "<p id=\"mode\">This server keeps SMS or e-mail in its development outbox instead of sending them.</p>"
        let clear: HTML =
            canClear
            ? """
            <h2>Clear all data</h2>
            <p>Deletes every account of \(projectID) with its sessions, as the emulator's <code>DELETE /emulator/v1/projects/\(projectID)/accounts</code> does. Type the project ID <code>\(projectID)</code> to confirm.</p>
            <form method="post" action="/console/development/clear"><input type="hidden" name="csrf" value="\(visit.csrf)">
            <label for="confirm-project">Project ID to clear</label><input id="confirm-project" name="confirm" type="text" autocomplete="off" required>
            <button type="submit" id="clear" class="danger">Clear all data</button></form>
            """
            : ""
        return """
            \(message)
            \(mode)
            <h2>SMS codes</h2>
            \(smsRows.isEmpty ? HTML("<p class=\"muted\" id=\"no-sms\">No SMS yet.</p>") : "<div class=\"table\"><table id=\"sms-codes\"><thead><tr><th scope=\"col\">Sent</th><th scope=\"col\">Phone number</th><th scope=\"col\">Code</th><th scope=\"col\">Status</th></tr></thead><tbody>\(smsRows)</tbody></table></div>")
            <h2>E-mail action links</h2>
            \(emailRows.isEmpty ? HTML("<p class=\"muted\" id=\"no-email\">No e-mail yet.</p>") : "<div class=\"table\"><table id=\"email-links\"><thead><tr><th scope=\"col\">Sent</th><th scope=\"col\">To</th><th scope=\"col\">Kind</th><th scope=\"col\">Link</th><th scope=\"col\">Status</th></tr></thead><tbody>\(emailRows)</tbody></table></div>")
            \(clear)
            """
    }

    func clear(_ visit: ConsoleVisit) async throws -> Console.Answer {
        guard engine.isEmulator else { return .response(ConsoleLayout.plain(.notFound, "Not found.\n")) }
        let origin = try console.origin(visit)
        do {
            // A viewer is refused before anything else is looked at.
            _ = try await console.asAdmin(visit) {
                guard visit.field("confirm") == origin.project.projectID else {
                    throw AuthError(.invalidArgument, "Type the project ID exactly to clear its data.")
                }
                return try await engine.deleteAllUsers(projectID: origin.project.projectID)
            }
            return .redirect("/console/development?done=cleared")
        } catch let error as AuthError {
            return .page(
                HTTPResponse.Status(code: error.code.httpStatus), title: "Development",
                try await body(visit, message: "<p class=\"error\" role=\"alert\" id=\"error\">\(error.message)</p>"))
        }
    }
}
