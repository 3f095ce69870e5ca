import Foundation
import HearthCore

/// `accounts:createAuthUri`: which sign-in methods an e-mail address has.
public struct CreateAuthURIRequest: Sendable {
    public var identifier: String?
    public var continueURI: String?
    public var sessionID: String?

    public init(identifier: String?, continueURI: String?, sessionID: String? = nil) {
        self.identifier = identifier
        self.continueURI = continueURI
        self.sessionID = sessionID
    }
}

public struct CreateAuthURIResult: Sendable, Equatable {
    public var sessionID: String
    /// Nil under e-mail enumeration protection: nothing about the address is revealed.
    public var registered: Bool?
    public var signInMethods: [String]?
}

extension AuthEngine {
    public func createAuthURI(_ request: CreateAuthURIRequest, origin: RequestOrigin) async throws
        -> CreateAuthURIResult
    {
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
        guard let user = try await store.user(projectID: origin.project.projectID, email: email) else {
            return CreateAuthURIResult(sessionID: sessionID, registered: false, signInMethods: [])
        }
        var methods: [String] = []
        if user.passwordHash != nil { methods.append(ProviderID.password) }
        if user.emailLinkSignIn { methods.append("emailLink") }
        for p in user.providers where p.providerID != ProviderID.phone && !methods.contains(p.providerID) {
            methods.append(p.providerID)
        }
        return CreateAuthURIResult(sessionID: sessionID, registered: true, signInMethods: methods)
    }
}
