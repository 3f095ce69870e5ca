import Foundation

/// A token-signing private key as persisted.
public struct StoredSigningKey: Sendable, Equatable {
    public var kid: String
    /// JWS algorithm; Hearth signs ID tokens with RS256 only.
    public var algorithm: String
    /// PKCS#8 DER, or its AES-GCM sealed box when `encrypted`.
    public var privateKey: [UInt8]
    public var encrypted: Bool
    public var createdAt: Date
    /// Published from creation, used for signing from this time on (so verifiers see it first).
    public var activatesAt: Date
    /// No longer used for signing from this time; published until tokens it signed have expired.
    public var retiredAt: Date?

    public init(
        kid: String, algorithm: String, privateKey: [UInt8], encrypted: Bool, createdAt: Date, activatesAt: Date,
        retiredAt: Date? = nil
    ) {
        self.kid = kid
        self.algorithm = algorithm
        self.privateKey = privateKey
        self.encrypted = encrypted
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiredAt = retiredAt
    }
}
