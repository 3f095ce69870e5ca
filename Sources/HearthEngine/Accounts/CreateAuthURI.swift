import Foundation
import HearthCore

/// `accounts:createAuthUri`: which sign-in methods an e-mail address has or, with `providerID`, the provider's
/// authorization URL for a browser sign-in that returns to `continueURI`.
public struct CreateAuthURIRequest: Sendable {
    public var identifier: String?
    public var continueURI: String?
    public var sessionID: String?
    public var providerID: String?
    public var scopes: [String]
    public var customParameters: [String: String]

    public init(
        identifier: String?, continueURI: String?, sessionID: String? = nil, providerID: String? = nil,
        scopes: [String] = [], customParameters: [String: String] = [:]
    ) {
        self.identifier = identifier
        self.continueURI = continueURI
        self.sessionID = sessionID
        self.providerID = providerID
        self.scopes = scopes
        self.customParameters = customParameters
    }
}

public struct CreateAuthURIResult: Sendable, Equatable {
    /// The provider's authorization URL, with `providerID`.
    public var authURI: String? = nil
    public var providerID: String? = nil
    public var sessionID: String
    /// Nil under e-mail enumeration protection: nothing about the address is revealed.
    public var registered: Bool?
    /// `allProviders`: the providers, `password` for e-mail links too.
    public var allProviders: [String]? = nil
    /// `signinMethods`: how the address signs in (`password`, `emailLink`, provider ids).
    public var signInMethods: [String]?
}

extension AuthEngine {
    public func createAuthURI(_ request: CreateAuthURIRequest, origin: RequestOrigin) async throws
        -> CreateAuthURIResult
    {
        if let providerID = request.providerID.nonEmpty {
            return try await createProviderAuthURI(providerID, request, origin)
        }
        guard let identifier = request.identifier.nonEmpty else { throw AuthError(.missingIdentifier) }
        guard let continueURI = request.continueURI.nonEmpty else { throw AuthError(.missingContinueURI) }
        guard let email = try? EmailAddress.normalize(identifier) else { throw AuthError(.invalidIdentifier) }
        guard let url = URL(string: continueURI), url.scheme != nil, url.host != nil else {
            throw AuthError(.invalidContinueURI)
        }
        let sessionID = request.sessionID.nonEmpty ?? random.alphanumeric(27)
        if origin.project.emailEnumerationProtection {
            return CreateAuthURIResult(sessionID: sessionID, registered: nil, signInMethods: nil)
        }
        let projectID = origin.project.projectID
        // The address may be the account's or one a provider gave (a link's e-mail), as in Firebase.
        var found = try await store.user(projectID: projectID, email: email)
        if found == nil { found = try await store.user(projectID: projectID, providerEmail: email) }
        // With duplicate e-mails allowed only an account's own address counts, and only for password sign-in.
        let duplicatesAllowed = origin.project.federation.allowDuplicateEmails
        guard let user = found, !duplicatesAllowed || user.email != nil else {
            return CreateAuthURIResult(sessionID: sessionID, registered: false, allProviders: [], signInMethods: [])
        }
        var providers: [String] = []
        var methods: [String] = []
        if user.passwordHash != nil || user.emailLinkSignIn { providers.append(ProviderID.password) }
        if user.passwordHash != nil { methods.append(ProviderID.password) }
        if user.emailLinkSignIn { methods.append(ProviderID.emailLink) }
        if !duplicatesAllowed {
            for p in user.providers where p.providerID != ProviderID.phone && !providers.contains(p.providerID) {
                providers.append(p.providerID)
                methods.append(p.providerID)
            }
        }
        return CreateAuthURIResult(
            sessionID: sessionID, registered: true, allProviders: providers, signInMethods: methods)
    }
}

extension AuthEngine {
    /// Firebase's provider form of createAuthUri: the provider returns to `continueUri` with `code` and `state`, and
    /// the client finishes with `signInWithIdp` (that URL as `requestUri`, and this answer's `sessionId`).
    func createProviderAuthURI(_ providerID: String, _ request: CreateAuthURIRequest, _ origin: RequestOrigin)
        async throws -> CreateAuthURIResult
    {
        guard let continueURI = request.continueURI.nonEmpty else { throw AuthError(.missingContinueURI) }
        guard let url = URLComponents(string: continueURI), ["http", "https"].contains(url.scheme ?? ""),
            url.host != nil, url.fragment == nil
        else { throw AuthError(.invalidContinueURI) }
        // The provider sends the code there: only a page of the project's own domains.
        guard isAllowedSignInRedirect(continueURI, project: origin.project) else {
            throw AuthError(.unauthorizedDomain)
        }
        let sessionID = request.sessionID.nonEmpty ?? random.alphanumeric(27)
        let authURI = try await startBrowserSignIn(
            BrowserSignInStart(
                providerID: providerID, sessionHash: Self.webSessionHash(sessionID), redirectURL: continueURI,
                callbackURL: continueURI, scopes: request.scopes, customParameters: request.customParameters),
            origin: origin
        ).url
        return CreateAuthURIResult(
            authURI: authURI, providerID: providerID.lowercased(), sessionID: sessionID, registered: nil,
            signInMethods: nil)
    }
}
