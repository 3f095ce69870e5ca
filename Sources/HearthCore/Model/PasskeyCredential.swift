import Foundation

/// A WebAuthn credential (a passkey) enrolled on a user: what sign-in verifies an assertion against and what
/// `passkeyInfo` shows. Stored in `passkey_credentials`, one row each, and loaded onto `UserRecord.passkeys` with the
/// user, as provider links are.
public struct PasskeyCredential: Sendable, Equatable {
    /// The authenticator's credential id, compared as bytes (clients send it in either base64 alphabet).
    public var credentialID: [UInt8]
    /// The WebAuthn `user.id` the credential was made for: random per user, never the uid; the same for all of a
    /// user's passkeys, and checked against the assertion's `userHandle` at sign-in.
    public var userHandle: [UInt8]
    /// The COSE_Key bytes as they appeared in the registration's authenticator data.
    public var publicKey: [UInt8]
    /// The COSE algorithm (-7 ES256, -257 RS256, -8 EdDSA).
    public var algorithm: Int
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    public var aaguid: [UInt8]
    public var name: String
    /// The attestation statement format at registration ("none", "packed"; empty in emulator mode).
    public var attestationFormat: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(
        credentialID: [UInt8], userHandle: [UInt8] = [], publicKey: [UInt8] = [], algorithm: Int = 0,
        signCount: UInt32 = 0, backupEligible: Bool = false, backedUp: Bool = false, aaguid: [UInt8] = [],
        name: String, attestationFormat: String = "", createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.credentialID = credentialID
        self.userHandle = userHandle
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.name = name
        self.attestationFormat = attestationFormat
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// How many passkeys one user may hold (PASSKEY_LIMIT_EXCEEDED beyond): Firebase documents no number;
    /// Supabase keeps 10, and a user rarely has more devices than that.
    public static let limitPerUser = 10

    /// The wire form of a credential id. Production answers standard padded base64 (the iOS SDK decodes only
    /// that); the Auth Emulator stores the `id` a client sent as text and answers it unchanged, so in emulator mode
    /// the bytes are that text's UTF-8.
    public static func wireID(_ bytes: [UInt8], emulator: Bool) -> String {
        emulator ? String(decoding: bytes, as: UTF8.self) : Base64.encode(bytes)
    }
}
