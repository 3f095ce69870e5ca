import Crypto
import Foundation
import HearthCore
import HearthStore

/// `accounts:sendOobCode`: an e-mail action link for a password reset or an address verification.
public struct EmailActionRequest: Sendable {
    public var kind: String?
    public var email: String?
    public var newEmail: String?
    public var idToken: String?
    public var continueURL: String?
    /// Admins only (the Admin SDKs' generate…Link): answer with the link instead of sending it.
    public var returnLink: Bool

    public init(
        kind: String?, email: String? = nil, newEmail: String? = nil, idToken: String? = nil,
        continueURL: String? = nil, returnLink: Bool = false
    ) {
        self.kind = kind
        self.email = email
        self.newEmail = newEmail
        self.idToken = idToken
        self.continueURL = continueURL
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
    /// How long a link works: an hour to reset a password, three days to verify an address (Firebase's times).
    static func lifetime(of kind: EmailActionCode.Kind) -> TimeInterval {
        kind == .passwordReset ? 3600 : 3 * 86400
    }

    public func sendEmailAction(_ r: EmailActionRequest, origin: RequestOrigin) async throws -> EmailActionResult {
        guard let name = r.kind.nonEmpty, name != "OOB_REQ_TYPE_UNSPECIFIED" else { throw AuthError(.missingReqType) }
        guard let kind = EmailActionCode.Kind(rawValue: name) else {
            throw AuthError(.operationNotAllowed, "\(name) links are not supported by Hearth yet.")
        }
        if r.returnLink && !origin.isAdmin { throw AuthError(.insufficientPermission) }
        if let url = r.continueURL, URL(string: url)?.host == nil {
            throw AuthError(.invalidContinueURI, "expected an absolute URI with a scheme and host")
        }
        let project = origin.project
        var email: String
        var newEmail: String?
        switch kind {
        case .passwordReset:
            guard let raw = r.email else { throw AuthError(.missingEmail) }
            email = try EmailAddress.normalize(raw)
            if try await store.user(projectID: project.projectID, email: email) == nil {
                // Under enumeration protection an unknown address looks like a known one.
                if project.emailEnumerationProtection && !origin.isAdmin { return EmailActionResult(email: email) }
                throw AuthError(.emailNotFound)
            }
        case .verifyEmail, .verifyAndChangeEmail:
            if origin.isAdmin && r.idToken.nonEmpty == nil {
                guard let raw = r.email else { throw AuthError(.missingEmail) }
                email = try EmailAddress.normalize(raw)
                guard try await store.user(projectID: project.projectID, email: email) != nil else {
                    throw AuthError(.userNotFound)
                }
            } else {
                let (user, _) = try await authenticatedUser(idToken: r.idToken, origin: origin)
                guard let own = user.email else { throw AuthError(.missingEmail) }
                email = own
            }
            if kind == .verifyAndChangeEmail {
                guard let raw = r.newEmail else { throw AuthError(.missingNewEmail) }
                let target = try EmailAddress.normalize(raw)
                if try await store.user(projectID: project.projectID, email: target) != nil {
                    throw AuthError(.emailExists)
                }
                newEmail = target
            }
        }

        let code = random.token(bytes: 32)
        let now = clock.now()
        try await store.insertEmailActionCode(
            EmailActionCode(
                codeHash: Self.actionCodeHash(code), projectID: project.projectID, kind: kind, email: email,
                newEmail: newEmail, createdAt: now, expiresAt: now.addingTimeInterval(Self.lifetime(of: kind))))
        let link = Self.actionLink(
            project: project, kind: kind, code: code, continueURL: r.continueURL, locale: origin.locale)
        if r.returnLink { return EmailActionResult(email: email, code: code, link: link) }
        // No mail server yet: the development outbox keeps the message, as the Firebase emulator logs it.
        try await store.appendEmailOutbox(
            EmailOutboxMessage(
                projectID: project.projectID, email: email, kind: kind, oobCode: code, oobLink: link, sentAt: now))
        logger.notice(
            "e-mail action link (development outbox; no mail server configured)",
            metadata: [
                "project": "\(project.projectID)", "email": "\(email)", "kind": "\(kind.rawValue)", "link": "\(link)",
            ])
        return EmailActionResult(email: email)
    }

    static func actionCodeHash(_ code: String) -> [UInt8] { Array(SHA256.hash(data: Data(code.utf8))) }

    static func actionLink(
        project: ProjectConfig, kind: EmailActionCode.Kind, code: String, continueURL: String?, locale: String?
    )
        -> String
    {
        var components = URLComponents(string: project.emailActionURL) ?? URLComponents()
        let mode =
            switch kind {
            case .passwordReset: "resetPassword"
            case .verifyEmail: "verifyEmail"
            case .verifyAndChangeEmail: "verifyAndChangeEmail"
            }
        var items = [URLQueryItem(name: "mode", value: mode), URLQueryItem(name: "oobCode", value: code)]
        if let key = project.apiKeys.first { items.append(URLQueryItem(name: "apiKey", value: key)) }
        if let continueURL { items.append(URLQueryItem(name: "continueUrl", value: continueURL)) }
        items.append(URLQueryItem(name: "lang", value: locale ?? "en"))
        components.queryItems = (components.queryItems ?? []) + items
        return components.string ?? project.emailActionURL
    }

    /// `accounts:resetPassword`: with only the code, says what it is for (verifyPasswordResetCode); with a new
    /// password, sets it, marks the address verified and ends every session.
    public func resetPassword(code: String?, newPassword: String?, origin: RequestOrigin) async throws
        -> (kind: EmailActionCode.Kind, email: String, newEmail: String?)
    {
        guard let code = code.nonEmpty else { throw AuthError(.missingOobCode) }
        let projectID = origin.project.projectID
        let hash = Self.actionCodeHash(code)
        guard let newPassword else {
            guard let found = try await store.emailActionCode(hash: hash, projectID: projectID, now: clock.now()) else {
                throw AuthError(.invalidOobCode)
            }
            return (found.kind, found.email, found.newEmail)
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
        return (used.kind, used.email, nil)
    }

    /// `accounts:update` with an `oobCode`: confirms an address (VERIFY_EMAIL) or moves the account to the new,
    /// now verified, address (VERIFY_AND_CHANGE_EMAIL).
    public func applyEmailAction(code: String, origin: RequestOrigin) async throws -> UserRecord {
        let projectID = origin.project.projectID
        let hash = Self.actionCodeHash(code)
        guard let peeked = try await store.emailActionCode(hash: hash, projectID: projectID, now: clock.now()),
            peeked.kind != .passwordReset,
            let used = try await store.consumeEmailActionCode(hash: hash, projectID: projectID, now: clock.now())
        else { throw AuthError(.invalidOobCode) }
        return try await retryingOnConflict {
            guard var user = try await store.user(projectID: projectID, email: used.email) else {
                throw AuthError(.invalidOobCode)
            }
            if let target = used.newEmail {
                user.email = target
                user.validSince = nowSecond()
            }
            user.emailVerified = true
            try await save(&user)
            if used.newEmail != nil { try await endSessions(of: user.uid, projectID: projectID) }
            logger.info("e-mail address confirmed", metadata: ["project": "\(projectID)", "uid": "\(user.uid)"])
            return user
        }
    }
}
