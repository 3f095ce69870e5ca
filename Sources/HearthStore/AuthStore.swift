import Foundation
import HearthCore

/// Everything Hearth persists. Every piece of state that matters lives behind this protocol,
/// so two servers on one database behave as one service. It is the composition of one protocol per aggregate
/// (users, sessions, one-time codes, keys, limits, settings, the audit log), each implemented on each backend in a file named after
/// it (`SQLiteAuthStore+Users.swift`, `PostgresAuthStore+Users.swift`, …); new state gets an aggregate of its own
/// rather than more methods here, and new code may depend on the one aggregate it needs.
///
/// Implementations must make each method atomic; `rotateRefreshToken` in particular must
/// serialise concurrent calls for the same token (across processes, not only threads).
/// `AuthStoreConformance` in the test suite states the contract as executable cases.
public protocol AuthStore: UserStore, SessionStore, OneTimeCodeStore, KeyStore, LimitStore, SettingsStore,
    AuditStore, ConsoleAdminStore
{
    /// A short name for logs ("sqlite:/path", "postgres://host/db").
    var description: String { get }

    /// Releases connections. Further calls fail.
    func shutdown() async throws

    /// A stamp that differs from any earlier one once a change of a stored user (an update or delete of `users`,
    /// any write of provider links: anything an existing `UserRecord` is read from) has been committed since, by
    /// this process or by any other
    /// on the same database; nil when the store cannot tell cheaply. A cache of users (the engine's user cache)
    /// reads the stamp *before* reading the user and keeps them together: an entry is current while the stamp is
    /// unchanged, so a revocation committed anywhere is seen by the next request (PostgreSQL: once its
    /// notification has arrived; docs/ARCHITECTURE.md gives the bound). A sign-in's bookkeeping (`recordSignIn`,
    /// `recordRefresh`, the counter and times of `recordPasskeySignIn`) may leave it unchanged (SQLite's does), so
    /// the process that writes it also drops that user from its cache; another process sees it at the user's next
    /// real change.
    func changeStamp() -> UInt64?
}

extension AuthStore {
    public func changeStamp() -> UInt64? { nil }
}

/// The database cannot be reached right now: it is shutting down or restarting, refused or dropped the
/// connection, or no pooled connection became free in time. A passing condition the server answers with
/// 503 UNAVAILABLE (clients retry); the store reconnects by itself.
public struct StoreUnavailable: Error, Sendable, CustomStringConvertible {
    /// What failed, for the log; never shown to clients.
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "the database is unavailable: \(reason)" }
}

/// Failures a store reports that the engine turns into Firebase errors.
public enum StoreError: Error, Sendable, Equatable {
    case uidExists
    case emailExists
    case phoneNumberExists
    case userNotFound
    case versionConflict
    /// A provider identity (provider id and raw id) already linked to another user.
    case federatedIDExists
    /// A passkey credential id already enrolled on another user of the project (or tenant).
    case passkeyExists
}
