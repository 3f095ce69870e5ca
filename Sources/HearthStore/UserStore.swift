import Foundation
import HearthCore

/// Users: accounts with their provider links and second-factor enrollments (`UserRecord`), read by uid,
/// e-mail, phone number or provider identity, written under a version check, listed, imported and deleted.
public protocol UserStore: Sendable {
    /// Inserts a new user. Throws `StoreError.uidExists` or `.emailExists`.
    func insertUser(_ user: UserRecord) async throws

    func user(projectID: String, uid: String) async throws -> UserRecord?

    /// Looks up by the lower-cased e-mail.
    func user(projectID: String, email: String) async throws -> UserRecord?

    /// Replaces a user's stored fields if the stored version is still `user.version`, then bumps it.
    /// Throws `.userNotFound`, `.emailExists`, or `.versionConflict` when someone else updated first.
    func updateUser(_ user: UserRecord) async throws

    /// Records a sign-in time without touching anything else (no version bump). A sign-in mints an ID token, so it
    /// is also the user's latest refresh (`lastRefreshAt`), as Firebase reports it.
    func recordSignIn(projectID: String, uid: String, at: Date) async throws

    /// Records a token refresh time without touching anything else (no version bump).
    func recordRefresh(projectID: String, uid: String, at: Date) async throws

    /// Deletes a user and revokes their refresh-token families (reason `userDeleted`). Returns whether it existed.
    func deleteUser(projectID: String, uid: String) async throws -> Bool

    func countUsers(projectID: String) async throws -> Int

    /// Looks up by E.164 phone number.
    func user(projectID: String, phoneNumber: String) async throws -> UserRecord?

    /// A page of a project's users in `uid` order, starting after `afterUID`.
    func users(projectID: String, afterUID: String?, limit: Int) async throws -> [UserRecord]

    /// Imports a batch in one transaction. Each user is inserted, or replaces the stored user with its uid when
    /// `overwrite` is set; a user that would break uniqueness is skipped and reported by its index.
    func importUsers(_ users: [UserRecord], overwrite: Bool) async throws -> [Int: StoreError]

    /// Deletes every user of a project with their sessions (the emulator's reset); returns how many.
    func deleteAllUsers(projectID: String) async throws -> Int

    /// The user linked to `rawID` at `providerID` (Apple's or Google's `sub`, a Facebook user id), if any.
    /// Each (provider, raw id) belongs to at most one user per project: inserting or updating a user whose
    /// links include one held by another user throws `StoreError.federatedIDExists`.
    func user(projectID: String, providerID: String, rawID: String) async throws -> UserRecord?

    /// A user with a provider link that carries `email` (as the provider last gave it, lower-cased), the lowest
    /// uid when several have one; for createAuthUri, which lists an address's sign-in methods.
    func user(projectID: String, providerEmail: String) async throws -> UserRecord?

    /// A page of the users whose e-mail, phone number or uid (by `search.field`) starts with `search.prefix`, in
    /// that field's order after `search.after`, keeping those that pass the filters: an indexed range scan, never
    /// a table scan, of at most `search.scanLimit` rows (the console's "Search users").
    func searchUsers(projectID: String, _ search: UserSearch, limit: Int) async throws -> UserSearchPage

    /// The user holding the passkey `credentialID` (compared as bytes). A credential id belongs to at most one user
    /// per project or tenant: inserting or updating a user whose passkeys include one held by another user throws
    /// `StoreError.passkeyExists`.
    func user(projectID: String, passkeyCredentialID: [UInt8]) async throws -> UserRecord?

    /// Records a passkey's use at sign-in without touching anything else (no version bump): the counter and the
    /// backup flags the assertion carried, and its time. A counter that meanwhile moved past `signCount` (another
    /// server's sign-in with the same credential) is kept; returns whether the row was written.
    func recordPasskeyUse(
        projectID: String, uid: String, credentialID: [UInt8], signCount: UInt32, backupEligible: Bool,
        backedUp: Bool, at: Date
    ) async throws -> Bool

    /// Makes a passkey sign-in's writes (`PasskeySignIn`) in one transaction if its `sign_in` challenge is still
    /// live, and returns true; otherwise returns false, having written nothing (beyond using up a challenge of the
    /// other purpose). Of concurrent calls with one challenge,
    /// on one server or several, exactly one returns true.
    func recordPasskeySignIn(_ signIn: PasskeySignIn) async throws -> Bool
}
