import HearthCore
import HearthStore

/// What the emulator's development routes (`/emulator/v1/…`) read and wipe, so that they go through the engine like
/// every other route rather than to the store around it.
extension AuthEngine {
    /// The development SMS outbox of a project, oldest first.
    public func smsOutbox(projectID: String) async throws -> [OutboxMessage] {
        try await store.outbox(projectID: projectID)
    }

    /// The development e-mail outbox of a project, oldest first.
    public func emailOutbox(projectID: String) async throws -> [EmailOutboxMessage] {
        try await store.emailOutbox(projectID: projectID)
    }

    /// Deletes every user of a project with their sessions (the emulator's reset); returns how many.
    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await store.deleteAllUsers(projectID: projectID)
    }

    /// The identities a provider has signed in with so far, from the first `limit` users: the emulator's account
    /// picker offers them again.
    public func signedInIdentities(projectID: String, providerID: String, limit: Int) async throws -> [ProviderUserInfo] {
        try await store.users(projectID: projectID, afterUID: nil, limit: limit)
            .flatMap { user in user.providers.filter { $0.providerID == providerID } }
    }
}
