import Crypto
import Foundation
import HearthCore
import HearthMessaging
import HearthStore

/// `accounts:sendOobCode`: an e-mail action link for a password reset or an address verification.
public struct EmailActionRequest: Sendable {
    public var kind: String?
    public var email: String?
    public var newEmail: String?
    public var idToken: String?
    public var continueURL: String?
    /// ActionCodeSettings: the app opens the link itself (required for EMAIL_SIGNIN).
    public var canHandleCodeInApp: Bool
    public var iOSBundleID: String?
    public var androidPackageName: String?
    /// Firebase Hosting / Dynamic Links domain for the link; Hearth's links point at its own pages, so only
    /// a domain the project authorizes is accepted.
    public var linkDomain: String?
    /// Admins only (the Admin SDKs' generate…Link): answer with the link instead of sending it.
    public var returnLink: Bool

    public init(
        kind: String?, email: String? = nil, newEmail: String? = nil, idToken: String? = nil,
        continueURL: String? = nil, canHandleCodeInApp: Bool = false, iOSBundleID: String? = nil,
        androidPackageName: String? = nil, linkDomain: String? = nil, returnLink: Bool = false
    ) {
        self.kind = kind
        self.email = email
        self.newEmail = newEmail
        self.idToken = idToken
        self.continueURL = continueURL
        self.canHandleCodeInApp = canHandleCodeInApp
        self.iOSBundleID = iOSBundleID
        self.androidPackageName = androidPackageName
        self.linkDomain = linkDomain
        self.returnLink = returnLink
    }
}

public struct EmailActionResult: Sendable {
    public var email: String
    /// Set when the link was asked for rather than sent.
    public var code: String?
    public var link: String?
}

extension AuthEngine {
    /// How long a link works: an hour to reset a password or sign in, three days to verify or restore an address
    /// (Firebase's times).
    static func lifetime(of kind: EmailActionCode.Kind) -> TimeInterval {
        kind == .passwordReset || kind == .emailSignIn ? 3600 : 3 * 86400
    }

    public func sendEmailAction(_ r: EmailActionRequest, origin: RequestOrigin) async throws -> EmailActionResult {
        // An admin's request is an audited change (a reset sent, a link made); an end user's is not.
        guard origin.isAdmin else { return try await makeEmailAction(r, origin: origin) }
        let action = r.kind == "PASSWORD_RESET" ? "user.passwordReset" : "user.emailAction"
        return try await audited(action, scope: origin.project.projectID) { change in
            let fields: [String: JSONValue?] = ["requestType": r.kind.map(JSONValue.string), "email": r.email.map(JSONValue.string)]
            change.after = .object(fields.compactMapValues { $0 })
            return try await makeEmailAction(r, origin: origin)
        }
    }

    private func makeEmailAction(_ r: EmailActionRequest, origin: RequestOrigin) async throws -> EmailActionResult {
        guard let name = r.kind.nonEmpty, name != "OOB_REQ_TYPE_UNSPECIFIED" else { throw AuthError(.missingReqType) }
        // Notices' links are made by the server, never asked for.
        guard let kind = EmailActionCode.Kind(rawValue: name), kind != .recoverEmail,
            kind != .revertSecondFactorAddition
        else {
            throw AuthError(.invalidReqType, "\(name) links are not supported by Hearth.")
        }
        if r.returnLink && !origin.isAdmin { throw AuthError(.insufficientPermission) }
        if !r.returnLink && !emailSender.isConfigured {
            throw AuthError(.operationNotAllowed, "E-mail delivery is not configured on this server.")
        }
        try checkActionCodeSettings(r, kind: kind, origin: origin)
        let project = origin.project
        // Firebase's emulator has no limits, and admins generating links are not throttled.
        let limited = !origin.emulator && !origin.isAdmin
        let hidesAccounts = project.emailEnumerationProtection && !origin.isAdmin
        var email: String
        var newEmail: String?
        var recipient: String
        var user: UserRecord?
        /// False when, under enumeration protection, the request is answered as if sent but nothing is sent.
        var deliverable = true
        switch kind {
        case .passwordReset, .emailSignIn:
            if kind == .emailSignIn, project.tenant?.enableEmailLinkSignin == false {
                throw AuthError(.operationNotAllowed)
            }
            guard let raw = r.email else { throw AuthError(.missingEmail) }
            email = try EmailAddress.normalize(raw)
            recipient = email
            user = try await store.user(projectID: project.projectID, email: email)
            if kind == .passwordReset && user == nil {
                // Under enumeration protection an unknown address looks like a known one. The emulator answers
                // its admin so too (with no link); a production admin, who can look accounts up anyway, is told.
                guard hidesAccounts || (origin.emulator && project.emailEnumerationProtection) else {
                    throw AuthError(.emailNotFound)
                }
                deliverable = false
            }
        case .verifyEmail, .verifyAndChangeEmail:
            // Firebase's order: the new address is checked before who asks.
            if kind == .verifyAndChangeEmail && r.newEmail.nonEmpty == nil { throw AuthError(.missingNewEmail) }
            if origin.isAdmin && r.idToken.nonEmpty == nil {
                guard let raw = r.email else { throw AuthError(.missingEmail) }
                email = try EmailAddress.normalize(raw)
                guard let found = try await store.user(projectID: project.projectID, email: email) else {
                    throw AuthError(.userNotFound)
                }
                user = found
            } else {
                // Without a token, a verification is for nobody (Firebase: INVALID_ID_TOKEN); a change still asks
                // for one (MISSING_ID_TOKEN).
                if kind == .verifyEmail && r.idToken.nonEmpty == nil { throw AuthError(.invalidIDToken) }
                let (found, token) = try await authenticatedUser(idToken: r.idToken, origin: origin)
                // The link moves the account to another address: a change of e-mail, asked with this token now.
                if kind == .verifyAndChangeEmail {
                    try authorizeSignInMethodChange(of: found, token: token, origin: origin)
                }
                guard let own = found.email else { throw AuthError(.missingEmail) }
                email = own
                user = found
            }
            recipient = email
            if kind == .verifyAndChangeEmail {
                guard let raw = r.newEmail else { throw AuthError(.missingNewEmail) }
                let target = try EmailAddress.normalize(raw)
                if try await store.user(projectID: project.projectID, email: target) != nil {
                    // Saying so would tell a signed-in stranger which addresses have accounts.
                    guard hidesAccounts else { throw AuthError(.emailExists) }
                    deliverable = false
                }
                newEmail = target
                recipient = target
            }
        case .recoverEmail, .revertSecondFactorAddition:
            throw AuthError(.invalidReqType)
        }
        if limited { try await reserveEmailSend(kind: kind, recipient: recipient, origin: origin) }
        guard deliverable else {
            await emailPacing.wait()
            return EmailActionResult(email: email)
        }

        let started = ContinuousClock.now
        let emailTypes: [EmailActionCode.Kind: String] = [.passwordReset: "PASSWORD_RESET", .emailSignIn: "EMAIL_SIGN_IN"]
        if !r.returnLink, let emailType = emailTypes[kind] {
            try await runBeforeSend(email: emailType, to: recipient, user: user, origin: origin)
        }
        let code = random.token(bytes: 32)
        let now = clock.now()
        let hash = Self.actionCodeHash(code)
        try await store.insertEmailActionCode(
            EmailActionCode(
                codeHash: hash, projectID: project.projectID, kind: kind, email: email,
                newEmail: newEmail, createdAt: now, expiresAt: now.addingTimeInterval(Self.lifetime(of: kind))))
        let link = Self.actionLink(origin: origin, kind: kind, code: code, continueURL: r.continueURL)
        if r.returnLink {
            // Firebase's emulator lists every code it made, also the ones an admin took as a link.
            if origin.emulator {
                try await store.appendEmailOutbox(
                    EmailOutboxMessage(
                        projectID: project.projectID, email: recipient, kind: kind, oobCode: code, oobLink: link,
                        sentAt: now))
            }
            return EmailActionResult(email: email, code: code, link: link)
        }
        do {
            try await deliver(
                kind: kind, to: recipient, code: code, hash: hash, link: link,
                values: .init(
                    link: link, email: email, newEmail: newEmail, appName: project.email.appName,
                    displayName: user?.displayName),
                origin: origin)
        } catch let error as AuthError where error.code == .unavailable && hidesAccounts {
            // Under enumeration protection a failed delivery answers like an unknown address (which sends
            // nothing), or a broken mail relay would tell which addresses have accounts. The log says it failed.
            return EmailActionResult(email: email)
        }
        emailPacing.record(EmailPacing.seconds(ContinuousClock.now - started))
        return EmailActionResult(email: email)
    }

    /// Renders and sends one action e-mail. When it cannot be sent, the code is deleted so no live link is left
    /// behind (unless the relay may have received it), and the client gets UNAVAILABLE (503), never a 500.
    func deliver(
        kind: EmailActionCode.Kind, template: EmailTemplates.Kind? = nil, to recipient: String, code: String,
        hash: [UInt8], link: String, values: EmailTemplates.Values, origin: RequestOrigin
    ) async throws {
        let project = origin.project
        let templateKind = template ?? Self.template(for: kind)
        let rendered = EmailTemplates.render(
            templateKind, values: values, locale: origin.locale, override: project.email.templates[templateKind])
        do {
            try await emailSender.send(
                EmailMessage(
                    projectID: project.projectID, to: recipient, senderName: rendered.senderName,
                    replyTo: rendered.replyTo, subject: rendered.subject, text: rendered.text, html: rendered.html,
                    kind: kind, oobCode: code, link: link, sentAt: clock.now()))
            AuthMetrics.email(outcome: "sent")
            recordMessageSent(ActivityAction.emailSent, kind: kind.rawValue, origin: origin)
        } catch {
            AuthMetrics.email(outcome: "failed")
            // A message the relay may have received keeps its link live: deleting the code would leave the user a
            // dead link, and nobody but the recipient holds it.
            let mayHaveArrived = (error as? EmailDeliveryError)?.mayHaveArrived == true
            if !mayHaveArrived {
                _ = try? await store.consumeEmailActionCode(hash: hash, projectID: project.projectID, now: clock.now())
            }
            // The error names the stage and the server's answer, never the link.
            logger.error(
                mayHaveArrived ? "e-mail delivery unconfirmed; its link stays live" : "e-mail delivery failed",
                metadata: ["project": "\(project.projectID)", "kind": "\(kind.rawValue)", "error": "\(error)"])
            throw AuthError(.unavailable, "The e-mail could not be sent; try again later.")
        }
    }

    /// The message a code's link is sent in, unless the caller names another (the password-changed notice carries
    /// a reset link).
    static func template(for kind: EmailActionCode.Kind) -> EmailTemplates.Kind {
        switch kind {
        case .passwordReset: .passwordReset
        case .verifyEmail: .verifyEmail
        case .verifyAndChangeEmail: .changeEmail
        case .recoverEmail: .recoverEmail
        case .emailSignIn: .emailSignIn
        case .revertSecondFactorAddition: .secondFactorAdded
        }
    }

    /// Counts the request against the client's IP and the recipient before anything is sent, in the store, so
    /// the limits hold under parallel requests and across servers.
    func reserveEmailSend(kind: EmailActionCode.Kind, recipient: String, origin: RequestOrigin) async throws {
        let settings = origin.project.email
        let projectID = origin.project.projectID
        let now = clock.now()
        if settings.sendsPerIPPerHour > 0,
            try await store.incrementCounter(
                "oob:ip:\(projectID):\(origin.clientIP ?? "-")", windowSeconds: 3600, now: now)
                > settings.sendsPerIPPerHour
        {
            throw AuthError(.quotaExceeded, "Too many e-mail requests from this address; try again later.")
        }
        if settings.sendsPerAddressPerHour > 0,
            try await store.incrementCounter(
                "oob:to:\(projectID):\(kind.rawValue):\(recipient)", windowSeconds: 3600, now: now)
                > settings.sendsPerAddressPerHour
        {
            throw kind == .passwordReset
                ? AuthError(.resetPasswordExceedLimit) : AuthError(.tooManyAttemptsTryLater)
        }
    }

    /// ActionCodeSettings as Firebase checks them: an absolute continue URL on an authorized domain, a continue
    /// URL and in-app handling for sign-in links, and a link domain the project knows.
    func checkActionCodeSettings(_ r: EmailActionRequest, kind: EmailActionCode.Kind, origin: RequestOrigin) throws {
        if let continueURL = r.continueURL.nonEmpty {
            // Read as the browser that follows it will read it (`BrowserURL`), not as Foundation does.
            guard BrowserURL(continueURL)?.host != nil else {
                throw AuthError(.invalidContinueURI, "expected an absolute URI with a scheme and host")
            }
            if !origin.emulator && !origin.project.authorizesRedirect(to: continueURL) {
                throw AuthError(.unauthorizedDomain, "Domain not allowlisted by project")
            }
        } else if kind == .emailSignIn && !origin.emulator {
            // Firebase requires one; its emulator does not.
            throw AuthError(.missingContinueURI)
        }
        // Clients must handle sign-in links in the app; admins generating a link (returnOobLink) need not say so,
        // as with Firebase (the Admin SDKs' generate_sign_in_with_email_link sends no flag by default).
        if kind == .emailSignIn && !r.canHandleCodeInApp && !origin.emulator && !origin.isAdmin {
            throw AuthError(.invalidArgument, "canHandleCodeInApp must be true for e-mail link sign-in.")
        }
        if r.iOSBundleID?.isEmpty == true { throw AuthError(.missingIOSBundleID) }
        if r.androidPackageName?.isEmpty == true { throw AuthError(.missingAndroidPackageName) }
        if let domain = r.linkDomain.nonEmpty, !origin.project.authorizesDomain(domain) {
            throw AuthError(
                .invalidHostingLinkDomain,
                "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com)."
            )
        }
    }

    /// Whether a continue URL may be offered to the user after an action (`ProjectConfig.authorizesRedirect`).
    public func isAuthorizedContinueURL(_ continueURL: String?, project: ProjectConfig) -> Bool {
        continueURL.map(project.authorizesRedirect(to:)) ?? false
    }

    static func actionCodeHash(_ code: String) -> [UInt8] { Array(SHA256.hash(data: Data(code.utf8))) }

    static func actionLink(origin: RequestOrigin, kind: EmailActionCode.Kind, code: String, continueURL: String?)
        -> String
    {
        let project = origin.project
        let mode =
            switch kind {
            case .passwordReset: "resetPassword"
            case .verifyEmail: "verifyEmail"
            case .verifyAndChangeEmail: "verifyAndChangeEmail"
            case .recoverEmail: "recoverEmail"
            case .emailSignIn: "signIn"
            case .revertSecondFactorAddition: "revertSecondFactorAddition"
            }
        if let emulator = origin.emulatorLinks,
            project.emailActionURL == ProjectConfig(projectID: project.firebaseProjectID).emailActionURL
        {
            // The emulator's shape and order, on its own handler (a project's own emailActionURL still wins).
            var components = URLComponents(string: emulator.baseURL + "/emulator/action") ?? URLComponents()
            var items = [
                URLQueryItem(name: "mode", value: mode), URLQueryItem(name: "lang", value: origin.locale ?? "en"),
                URLQueryItem(name: "oobCode", value: code), URLQueryItem(name: "apiKey", value: emulator.apiKey),
            ]
            if emulator.namesProject { items.append(URLQueryItem(name: "projectId", value: project.firebaseProjectID)) }
            if let continueURL { items.append(URLQueryItem(name: "continueUrl", value: continueURL)) }
            if let tenant = project.tenantID { items.append(URLQueryItem(name: "tenantId", value: tenant)) }
            components.queryItems = items
            return components.string ?? emulator.baseURL
        }
        var components = URLComponents(string: project.emailActionURL) ?? URLComponents()
        var items = [URLQueryItem(name: "mode", value: mode), URLQueryItem(name: "oobCode", value: code)]
        if let key = project.apiKeys.first {
            items.append(URLQueryItem(name: "apiKey", value: key))
        } else {
            // A project that takes any key is named instead, so Hearth's action page knows whose code it is.
            items.append(URLQueryItem(name: "projectId", value: project.firebaseProjectID))
        }
        // A tenant's link names the tenant, as Firebase's do, so the handler acts in the tenant's scope.
        if let tenant = project.tenantID { items.append(URLQueryItem(name: "tenantId", value: tenant)) }
        if let continueURL { items.append(URLQueryItem(name: "continueUrl", value: continueURL)) }
        items.append(URLQueryItem(name: "lang", value: origin.locale ?? "en"))
        components.queryItems = (components.queryItems ?? []) + items
        return components.string ?? project.emailActionURL
    }

    /// `accounts:resetPassword`: with only the code, says what it is for (verifyPasswordResetCode); with a new
    /// password, sets it, marks the address verified and ends every session.
    public func resetPassword(code: String?, newPassword: String?, origin: RequestOrigin) async throws
        -> (kind: EmailActionCode.Kind, email: String, newEmail: String?)
    {
        if origin.project.tenant?.allowPasswordSignup == false { throw AuthError(.passwordLoginDisabled) }
        guard let code = code.nonEmpty else { throw AuthError(.missingOobCode) }
        let projectID = origin.project.projectID
        let hash = Self.actionCodeHash(code)
        guard let newPassword else {
            guard let found = try await store.emailActionCode(hash: hash, projectID: projectID, now: clock.now()) else {
                throw AuthError(.invalidOobCode)
            }
            // A sign-in link does not say whose it is: the app must know the address (Firebase's rule).
            return (found.kind, found.kind == .emailSignIn ? "" : found.email, found.newEmail)
        }
        try origin.project.passwordPolicy.check(newPassword)
        guard let peeked = try await store.emailActionCode(hash: hash, projectID: projectID, now: clock.now()),
            peeked.kind == .passwordReset
        else { throw AuthError(.invalidOobCode) }
        let passwordHash = try await hasher.hash(newPassword).encoded
        guard let used = try await store.consumeEmailActionCode(hash: hash, projectID: projectID, now: clock.now())
        else {
            throw AuthError(.invalidOobCode)
        }
        try await retryingOnConflict {
            guard var user = try await store.user(projectID: projectID, email: used.email) else {
                throw AuthError(.invalidOobCode)
            }
            user.passwordHash = passwordHash
            user.passwordUpdatedAt = clock.now()
            user.emailVerified = true
            user.validSince = nowSecond()
            try await save(&user)
            try await endSessions(of: user.uid, projectID: projectID)
        }
        logger.info("password reset by e-mail link", metadata: ["project": "\(projectID)", "email": "\(used.email)"])
        if origin.project.email.notifyPasswordChange {
            await sendPasswordChangedNotice(to: used.email, user: nil, origin: origin)
        }
        return (used.kind, used.email, nil)
    }

    /// `accounts:update` with an `oobCode`: confirms an address (VERIFY_EMAIL), moves the account to the new,
    /// now verified, address (VERIFY_AND_CHANGE_EMAIL, telling the old address how to undo it), moves it back
    /// (RECOVER_EMAIL), or removes a second factor its owner did not add (REVERT_SECOND_FACTOR_ADDITION).
    public func applyEmailAction(code: String, origin: RequestOrigin) async throws
        -> (user: UserRecord, kind: EmailActionCode.Kind)
    {
        let projectID = origin.project.projectID
        let hash = Self.actionCodeHash(code)
        guard let peeked = try await store.emailActionCode(hash: hash, projectID: projectID, now: clock.now()),
            [.verifyEmail, .verifyAndChangeEmail, .recoverEmail, .revertSecondFactorAddition].contains(peeked.kind),
            let used = try await store.consumeEmailActionCode(hash: hash, projectID: projectID, now: clock.now())
        else { throw AuthError(.invalidOobCode) }
        var previous: (email: String, verified: Bool)?
        let user = try await retryingOnConflict {
            // A recovery code names the address the account left for; the others the account's address.
            let current = used.kind == .recoverEmail ? used.newEmail ?? used.email : used.email
            guard var user = try await store.user(projectID: projectID, email: current) else {
                throw AuthError(.invalidOobCode)
            }
            switch used.kind {
            case .verifyAndChangeEmail:
                previous = (current, user.emailVerified)
                if user.initialEmail == nil { user.initialEmail = current }
                user.email = used.newEmail
                user.validSince = nowSecond()
            case .recoverEmail:
                user.email = used.email
                user.validSince = nowSecond()
            case .revertSecondFactorAddition:
                // Whoever added the factor may hold a session: all of them end.
                user.mfaEnrollments.removeAll { $0.id == used.mfaEnrollmentID }
                user.validSince = nowSecond()
            default: break
            }
            user.emailVerified = true
            try await save(&user)
            if used.kind != .verifyEmail {
                try await endSessions(of: user.uid, projectID: projectID)
            }
            logger.info(
                "e-mail address confirmed",
                metadata: ["project": "\(projectID)", "uid": "\(user.uid)", "kind": "\(used.kind.rawValue)"])
            return user
        }
        if let previous, previous.verified, let newEmail = user.email {
            await sendRecoveryNotice(to: previous.email, newEmail: newEmail, user: user, origin: origin)
        }
        return (user, used.kind)
    }

    /// After a verified address was replaced, its owner gets a link that restores it (Firebase's "email address
    /// change" notice). The change stands even if this mail cannot be sent.
    func sendRecoveryNotice(to oldEmail: String, newEmail: String, user: UserRecord, origin: RequestOrigin) async {
        await sendNotice(
            EmailActionCode(
                codeHash: [], projectID: origin.project.projectID, kind: .recoverEmail, email: oldEmail,
                newEmail: newEmail, createdAt: clock.now(), expiresAt: clock.now()),
            user: user, origin: origin)
    }

    /// After a second factor was added to an account with a verified address, the address gets a link that
    /// removes it (Firebase's "2-step verification enrollment" notice), so a stolen password plus an attacker's
    /// phone does not lock the owner out.
    func sendSecondFactorNotice(user: UserRecord, enrollment: MFAEnrollment, origin: RequestOrigin) async {
        // Firebase's emulator sends no such notice, so `--emulator`'s outbox does not list one either.
        guard let email = user.email, user.emailVerified, !origin.emulator else { return }
        await sendNotice(
            EmailActionCode(
                codeHash: [], projectID: origin.project.projectID, kind: .revertSecondFactorAddition, email: email,
                mfaEnrollmentID: enrollment.id, createdAt: clock.now(), expiresAt: clock.now()),
            user: user, origin: origin,
            secondFactor: enrollment.displayName ?? enrollment.phoneNumber.map(MFAEnrollment.mask) ?? "TOTP")
    }

    /// The project's optional password-changed notice, with a reset link for an owner who did not change it.
    func sendPasswordChangedNotice(to email: String, user: UserRecord?, origin: RequestOrigin) async {
        let found = try? await store.user(projectID: origin.project.projectID, email: email)
        guard let user = user ?? found else { return }
        await sendNotice(
            EmailActionCode(
                codeHash: [], projectID: origin.project.projectID, kind: .passwordReset, email: email,
                createdAt: clock.now(), expiresAt: clock.now()),
            template: .passwordChanged, user: user, origin: origin)
    }

    /// "Passkey added" or "passkey removed" (`passkeys`, by name) to the account's verified address, once the change is
    /// stored, whoever made it; its link resets the password. Not sent to an unverified address, which may not be
    /// the owner's.
    func sendPasskeyNotice(
        _ template: EmailTemplates.Kind, passkeys: [PasskeyCredential], user: UserRecord, origin: RequestOrigin
    ) async {
        guard !passkeys.isEmpty, user.emailVerified, let email = user.email else { return }
        await sendNotice(
            EmailActionCode(
                codeHash: [], projectID: origin.project.projectID, kind: .passwordReset, email: email,
                createdAt: clock.now(), expiresAt: clock.now()),
            template: template, user: user, origin: origin, passkey: passkeys.map(\.name).joined(separator: ", "))
    }

    /// The passkeys `before` had that `after` has not, reported to the owner (a user's or an admin's removal).
    func sendPasskeysRemovedNotice(before: UserRecord, after: UserRecord, origin: RequestOrigin) async {
        let removed = before.passkeys.filter { old in !after.passkeys.contains { $0.credentialID == old.credentialID } }
        await sendPasskeyNotice(.passkeyRemoved, passkeys: removed, user: after, origin: origin)
    }

    /// Makes the notice's code (kind, addresses and enrollment from `model`) and sends it. Best effort: the change
    /// it reports stands even when the mail cannot be sent.
    private func sendNotice(
        _ model: EmailActionCode, template: EmailTemplates.Kind? = nil, user: UserRecord, origin: RequestOrigin,
        secondFactor: String? = nil, passkey: String? = nil
    ) async {
        guard emailSender.isConfigured else { return }
        let project = origin.project
        let code = random.token(bytes: 32)
        let now = clock.now()
        var stored = model
        stored.codeHash = Self.actionCodeHash(code)
        stored.createdAt = now
        stored.expiresAt = now.addingTimeInterval(Self.lifetime(of: model.kind))
        do {
            try await store.insertEmailActionCode(stored)
            let link = Self.actionLink(origin: origin, kind: model.kind, code: code, continueURL: nil)
            try await deliver(
                kind: model.kind, template: template, to: model.email, code: code, hash: stored.codeHash, link: link,
                values: .init(
                    link: link, email: model.email, newEmail: model.newEmail, appName: project.email.appName,
                    displayName: user.displayName, secondFactor: secondFactor, passkey: passkey),
                origin: origin)
        } catch {
            logger.warning(
                "security notice not sent",
                metadata: [
                    "project": "\(project.projectID)", "uid": "\(user.uid)",
                    "notice": "\((template ?? Self.template(for: model.kind)).rawValue)",
                ])
        }
    }
}

extension AuthEngine {
    /// The action code if it can still be used (the emulator's listing leaves spent codes out).
    public func liveActionCode(_ code: String, projectID: String) async throws -> EmailActionCode? {
        try await store.emailActionCode(hash: Self.actionCodeHash(code), projectID: projectID, now: clock.now())
    }

    /// Whether an SMS code's session can still be used (the emulator's listing leaves used codes out).
    public func livePhoneSession(_ sessionInfo: String) async throws -> Bool {
        try await store.phoneVerificationIsLive(sessionHash: Self.sessionHash(sessionInfo), now: clock.now())
    }
}
