import Foundation
import HearthCore
import HearthStore

/// A sign-in's bookkeeping: the user's last sign-in and last refresh, a passkey's counter. The store may write it
/// without moving its change stamp (SQLite does, so that one user's sign-in leaves every other user cached), so each
/// write here also tells the user cache, which then reads this user afresh. Everything that writes bookkeeping for a
/// user goes through these.
extension AuthEngine {
    func recordSignIn(projectID: String, uid: String, at: Date) async throws {
        defer { users.bookkeepingWritten(projectID: projectID, uid: uid) }
        try await store.recordSignIn(projectID: projectID, uid: uid, at: at)
    }

    func recordRefresh(projectID: String, uid: String, at: Date) async throws {
        defer { users.bookkeepingWritten(projectID: projectID, uid: uid) }
        try await store.recordRefresh(projectID: projectID, uid: uid, at: at)
    }

    /// False when the sign-in's challenge was no longer there to take (`UserStore.recordPasskeySignIn`). With
    /// `signedIn` (the user the sign-in read, and its ticket), the cache keeps that user with this write applied
    /// instead of reading it again at its next sign-in.
    func recordPasskeySignIn(
        _ signIn: PasskeySignIn, signedIn: (user: UserRecord, ticket: UserCache.Ticket?)? = nil
    ) async throws -> Bool {
        var recorded = false
        defer {
            users.bookkeepingWritten(
                projectID: signIn.projectID, uid: signIn.uid,
                updated: recorded ? signedIn.map { signIn.applied(to: $0.user) } : nil, ticket: signedIn?.ticket)
        }
        recorded = try await store.recordPasskeySignIn(signIn)
        return recorded
    }
}
