import Foundation
import HearthCore
import HearthStore

/// `accounts:update` by the signed-in user.
public struct UpdateAccountRequest: Sendable {
    public enum Attribute: String, Sendable {
        case displayName = "DISPLAY_NAME"
        case photoURL = "PHOTO_URL"
        case email = "EMAIL"
        case password = "PASSWORD"
        case unspecified = "USER_ATTRIBUTE_NAME_UNSPECIFIED"
    }

    public var idToken: String?
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var deleteAttributes: [Attribute]
    public var deleteProviders: [String]
    /// `deletePasskey`: credential ids to remove (`UserRecord.deletePasskeys`).
    public var deletePasskeys: [String] = []
    /// A client's `validSince` (any value): end every session, this one too, and answer a fresh one ("sign out
    /// everywhere", as the Firebase emulator reads it). Only admins set a particular time.
    public var endsSessions = false

    public init(
        idToken: String?, email: String? = nil, password: String? = nil, displayName: String? = nil,
        photoURL: String? = nil, deleteAttributes: [Attribute] = [], deleteProviders: [String] = []
    ) {
        self.idToken = idToken
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.deleteAttributes = deleteAttributes
        self.deleteProviders = deleteProviders
    }
}

extension AuthEngine {
    /// Applies a profile change. Changing e-mail or password needs a recent sign-in, moves
    /// `validSince` to now (ending every other session) and returns a fresh session.
    public func updateAccount(_ request: UpdateAccountRequest, origin: RequestOrigin) async throws -> AccountResult {
        try await retryingOnConflict { try await applyUpdate(request, origin: origin) }
    }

    private func applyUpdate(_ request: UpdateAccountRequest, origin: RequestOrigin) async throws -> AccountResult {
        guard request.idToken.nonEmpty != nil else {
            throw AuthError(.invalidReqType, "Unsupported request parameters.")
        }
        var (user, token) = try await authenticatedUser(idToken: request.idToken, origin: origin)
        let project = origin.project
        let newEmail = try request.email.nonEmpty.map { e throws(AuthError) in try EmailAddress.normalize(e) }
        let newPassword = request.password.nonEmpty
        let changesCredentials =
            (newEmail != nil && newEmail != user.email) || newPassword != nil
            || request.deleteAttributes.contains(.password) || request.deleteAttributes.contains(.email)

        if changesCredentials { try authorizeSignInMethodChange(of: user, token: token, origin: origin) }
        /// A verified address this update replaces: its owner gets a link to undo the change.
        var replaced: String?
        if let newEmail, newEmail != user.email {
            // Production Firebase refuses a direct e-mail change under enumeration protection:
            // the new address must be verified first (sendOobCode VERIFY_AND_CHANGE_EMAIL).
            if project.emailEnumerationProtection {
                throw AuthError(.operationNotAllowed, "Please verify the new email before changing email.")
            }
            if try await store.user(projectID: project.projectID, email: newEmail) != nil {
                throw AuthError(.emailExists)
            }
            replaced = replaceEmail(of: &user, with: newEmail, verified: false, origin: origin)
        }
        if let newPassword {
            try project.passwordPolicy.check(newPassword)
            user.passwordHash = try await hasher.hash(newPassword).encoded
            user.passwordUpdatedAt = clock.now()
        }
        if let name = request.displayName { user.displayName = name.isEmpty ? nil : name }
        if let photo = request.photoURL { user.photoURL = photo.isEmpty ? nil : photo }
        user.delete(attributes: request.deleteAttributes, providers: request.deleteProviders)
        let beforePasskeys = user
        try user.deletePasskeys(request.deletePasskeys, emulator: origin.emulator)

        var tokens: SessionTokens?
        if changesCredentials {
            user.validSince = nowSecond()
            user.lastLoginAt = clock.now()
        } else if request.endsSessions {
            user.validSince = nowSecond()
        }
        try await save(&user)
        if changesCredentials {
            try await finishSignInMethodChange(user, replacedEmail: replaced, origin: origin)
        } else if request.endsSessions {
            try await endSessions(of: user.uid, projectID: user.projectID)
        }
        // The old verified address when this update also replaced it; the new one is not verified yet.
        if newPassword != nil, project.email.notifyPasswordChange,
            let address = replaced ?? (user.emailVerified ? user.email : nil)
        {
            await sendPasswordChangedNotice(to: address, user: user, origin: origin)
        }
        await sendPasskeysRemovedNotice(before: beforePasskeys, after: user, origin: origin)
        if changesCredentials || request.endsSessions {
            logger.info(
                changesCredentials ? "credentials changed; earlier sessions ended" : "sessions ended at the user's request",
                metadata: ["uid": "\(user.uid)"])
            let provider = newPassword != nil ? ProviderID.password : (token.signInProvider ?? ProviderID.password)
            tokens = try await startSession(for: user, provider: provider, origin: origin, signIn: false)
        }
        return AccountResult(user: user, tokens: tokens, isNewUser: false)
    }
}

extension UserRecord {
    /// `deleteAttribute` and `deleteProvider` of `accounts:update`, for users and admins alike.
    mutating func delete(attributes: [UpdateAccountRequest.Attribute], providers: [String]) {
        for attribute in attributes {
            switch attribute {
            case .displayName: displayName = nil
            case .photoURL: photoURL = nil
            case .password: passwordHash = nil
            case .email:
                email = nil
                emailVerified = false
                emailLinkSignIn = false
            case .unspecified: break
            }
        }
        for provider in providers {
            switch provider {
            case ProviderID.password:
                email = nil
                emailVerified = false
                emailLinkSignIn = false
                passwordHash = nil
            case ProviderID.phone:
                phoneNumber = nil
            default:
                self.providers.removeAll { $0.providerID == provider }
            }
        }
    }
}
