import Foundation

/// A pending phone verification: the SMS code sent for one `sessionInfo`.
///
/// Neither the session nor the code is stored: the row is keyed by SHA-256 of the session and holds
/// HMAC(session, code), so a copy of the database cannot be used to guess or replay codes.
public struct PhoneVerification: Sendable, Equatable {
    public var sessionHash: [UInt8]
    public var projectID: String
    public var phoneNumber: String
    public var codeHash: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        sessionHash: [UInt8], projectID: String, phoneNumber: String, codeHash: [UInt8], createdAt: Date,
        expiresAt: Date
    ) {
        self.sessionHash = sessionHash
        self.projectID = projectID
        self.phoneNumber = phoneNumber
        self.codeHash = codeHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The result of presenting a code, decided atomically so concurrent attempts on one session
/// cannot both succeed or exceed the attempt limit.
public enum PhoneCodeOutcome: Sendable, Equatable {
    /// The code matched; the session is consumed.
    case verified(phoneNumber: String)
    /// Wrong code for the session's `phoneNumber`; `remaining` attempts are left (the session is deleted when none
    /// are).
    case wrongCode(phoneNumber: String, remaining: Int)
    /// The session expired (and is deleted).
    case expired
    /// No such session: never issued, already used, or used up.
    case unknown
}

/// A proof that a phone number was verified, handed out instead of tokens when the number belongs to
/// another account (Firebase's `temporaryProof`). Stored as a hash; single use.
public struct PhoneProof: Sendable, Equatable {
    public var proofHash: [UInt8]
    public var projectID: String
    public var phoneNumber: String
    public var expiresAt: Date

    public init(proofHash: [UInt8], projectID: String, phoneNumber: String, expiresAt: Date) {
        self.proofHash = proofHash
        self.projectID = projectID
        self.phoneNumber = phoneNumber
        self.expiresAt = expiresAt
    }
}

/// An SMS as the development outbox keeps it, readable through the emulator and admin routes.
public struct OutboxMessage: Sendable, Equatable {
    public var projectID: String
    public var phoneNumber: String
    public var code: String
    public var sessionInfo: String
    public var text: String
    public var sentAt: Date

    public init(projectID: String, phoneNumber: String, code: String, sessionInfo: String, text: String, sentAt: Date) {
        self.projectID = projectID
        self.phoneNumber = phoneNumber
        self.code = code
        self.sessionInfo = sessionInfo
        self.text = text
        self.sentAt = sentAt
    }
}
