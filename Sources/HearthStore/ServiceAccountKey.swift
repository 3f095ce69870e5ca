import Foundation

/// The public half of a service-account key that `hearth service-accounts create` made. Its holder
/// signs RFC 7523 assertions for admin access tokens and custom tokens; Hearth keeps only the public key.
public struct ServiceAccountKey: Sendable, Equatable {
    /// `private_key_id` in the JSON file, and the `kid` of every JWT its holder signs.
    public var keyID: String
    public var projectID: String
    /// `client_email`: the `iss` and `sub` of its assertions and custom tokens.
    public var clientEmail: String
    /// The RSA public key, SubjectPublicKeyInfo DER.
    public var publicKey: [UInt8]
    public var createdAt: Date
    /// Nothing signed by a revoked key is accepted any more.
    public var revokedAt: Date?

    public init(
        keyID: String, projectID: String, clientEmail: String, publicKey: [UInt8], createdAt: Date,
        revokedAt: Date? = nil
    ) {
        self.keyID = keyID
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
