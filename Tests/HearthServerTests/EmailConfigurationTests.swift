import Foundation
import HearthCore
import HearthMessaging
import HearthServer
import Testing

/// The `email` and `publicURL` settings as an operator writes them.
@Suite("E-mail configuration")
struct EmailConfigurationTests {
    func decode(_ json: String) throws -> ServerConfiguration {
        try JSONDecoder().decode(ServerConfiguration.self, from: Data(json.utf8))
    }

    func problem(_ configuration: ServerConfiguration) -> String? {
        do {
            try configuration.validate()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func anSMTPSectionWithThePasswordFromTheEnvironment() throws {
        var c = try decode(
            #"{"publicURL": "https://auth.example.com/", "email": {"provider": "smtp", "smtp": {"host": "smtp.example.com", "security": "tls", "username": "u", "from": "no-reply@example.com", "fromName": "Example"}}, "projects": [{"projectId": "p"}, {"projectId": "q", "emailActionURL": "https://q.example.com/action"}]}"#
        )
        #expect(c.email.provider == .smtp && c.email.smtp?.effectivePort == 465)
        #expect(problem(c)?.contains("HEARTH_SMTP_PASSWORD") == true, "a username needs a password")
        try c.applyEnvironment(["HEARTH_SMTP_PASSWORD": "secret"])
        #expect(c.email.smtp?.password == "secret" && problem(c) == nil)
        let projects = c.resolvedProjects
        #expect(projects[0].emailActionURL == "https://auth.example.com/__/auth/action")
        #expect(projects[0].authorizedDomains.contains("auth.example.com"))
        #expect(projects[1].emailActionURL == "https://q.example.com/action", "a project's own handler stays")
    }

    @Test func settingsThatWouldLeakOrBeIgnoredAreRefused() throws {
        var plaintext = try decode(
            #"{"email": {"provider": "smtp", "smtp": {"host": "mail.example.com", "security": "none", "username": "u", "from": "a@example.com"}}}"#
        )
        try plaintext.applyEnvironment(["HEARTH_SMTP_PASSWORD": "secret"])
        #expect(problem(plaintext)?.contains("plaintext") == true)
        #expect(throws: DecodingError.self) {
            try decode(#"{"email": {"provider": "smtp", "smtp": {"host": "h", "from": "a@example.com", "cafile": "x"}}}"#)
        }
        #expect(problem(try decode(#"{"email": {"provider": "smtp"}}"#)) == "email.provider is smtp but email.smtp is missing")
        #expect(problem(try decode(#"{"email": {"provider": "webhook", "webhook": {"url": "https://x"}}}"#))?
            .contains("HEARTH_EMAIL_WEBHOOK_SECRET") == true)
        #expect(problem(try decode(#"{"publicURL": "auth.example.com"}"#))?.contains("publicURL") == true)
        #expect(problem(try decode(#"{"email": {"provider": "smtp", "smtp": {"host": "h", "from": "a@example.com", "caFile": "/nonexistent.pem"}}}"#))?
            .contains("caFile") == true)
    }
}
