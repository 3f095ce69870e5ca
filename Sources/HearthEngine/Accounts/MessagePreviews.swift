import HearthCore
import HearthMessaging
import HearthStore

/// A project's e-mail as its templates render it, with a sample link that no code stands behind: what the console
/// previews, and what its "Send test e-mail" delivers.
public struct EmailPreview: Sendable, Equatable {
    /// The message's name in the config file's `email.templates` (`passwordReset`, …).
    public var template: String
    public var senderName: String?
    public var subject: String
    public var text: String
    public var html: String
}

extension AuthEngine {
    /// The messages a project's templates can change, by their config-file names, with their own kind and the kind
    /// of link they carry.
    static let previewedTemplates: [(name: String, kind: EmailTemplates.Kind, link: EmailActionCode.Kind)] = [
        ("verifyEmail", .verifyEmail, .verifyEmail), ("passwordReset", .passwordReset, .passwordReset),
        ("changeEmail", .changeEmail, .verifyAndChangeEmail), ("recoverEmail", .recoverEmail, .recoverEmail),
        ("emailSignIn", .emailSignIn, .emailSignIn),
        ("revertSecondFactorAddition", .secondFactorAdded, .revertSecondFactorAddition),
        ("passwordChanged", .passwordChanged, .passwordReset),
    ]

    /// The names of the messages a project's templates can change, in the config file's words.
    public static var emailTemplateNames: [String] { previewedTemplates.map(\.name) }

    /// Every message a project's templates can change, rendered for `recipient` in English.
    public func emailPreviews(recipient: String, origin: RequestOrigin) -> [EmailPreview] {
        Self.previewedTemplates.map { preview($0, recipient: recipient, origin: origin) }
    }

    private func preview(
        _ template: (name: String, kind: EmailTemplates.Kind, link: EmailActionCode.Kind), recipient: String,
        origin: RequestOrigin
    ) -> EmailPreview {
        let project = origin.project
        // A code that is never stored: the link shows its shape and opens nothing.
        let link = Self.actionLink(origin: origin, kind: template.link, code: "sample-code", continueURL: nil)
        let values = EmailTemplates.Values(
            link: link, email: recipient, newEmail: template.kind == .changeEmail ? recipient : nil,
            appName: project.email.appName, displayName: nil, secondFactor: "+1 ••• ••• 1234")
        let rendered = EmailTemplates.render(
            template.kind, values: values, locale: nil, override: project.email.templates[template.kind])
        return EmailPreview(
            template: template.name, senderName: rendered.senderName, subject: rendered.subject, text: rendered.text,
            html: rendered.html)
    }

    /// Sends one template's preview to `recipient` through the project's configured sender, its subject marked as
    /// a test; one audit event (`settings.testEmail`).
    public func sendTestEmail(template name: String, to recipient: String, origin: RequestOrigin) async throws {
        try await audited("settings.testEmail", scope: origin.project.firebaseProjectID) { change in
            change.after = ["template": .string(name), "to": .string(recipient)]
            guard let template = Self.previewedTemplates.first(where: { $0.name == name }) else {
                throw AuthError(.invalidArgument, "There is no e-mail template \(name).")
            }
            let address = try EmailAddress.normalize(recipient)
            guard emailSender.isConfigured else {
                throw AuthError(.operationNotAllowed, "E-mail delivery is not configured on this server.")
            }
            let preview = preview(template, recipient: address, origin: origin)
            do {
                try await emailSender.send(
                    EmailMessage(
                        projectID: origin.project.projectID, to: address, senderName: preview.senderName,
                        subject: "[Test] " + preview.subject, text: preview.text, html: preview.html,
                        kind: template.link, oobCode: "", link: "", sentAt: clock.now()))
            } catch {
                logger.error("test e-mail not delivered", metadata: ["error": "\(error)"])
                throw AuthError(.unavailable, "The e-mail could not be sent: \(error)")
            }
        }
    }
}

extension AuthEngine {
    /// The verification SMS as the project's template (or the built-in English text) renders it, with a sample code.
    public func smsPreview(origin: RequestOrigin) -> String {
        SMSTemplates.text(
            code: "123456", appName: origin.project.phone.appName, locale: nil,
            projectTemplate: origin.project.phone.smsTemplate)
    }
}
