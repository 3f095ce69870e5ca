import HearthCore
import HearthMessaging
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

    /// Deletes every user of a project with their sessions (the emulator's reset, the console's "Clear all data");
    /// returns how many. One audit event (`user.deleteAll`) with the count when an operator is bound.
    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await audited("user.deleteAll", scope: projectID) { change in
            let count = try await store.deleteAllUsers(projectID: projectID)
            change.after = ["deletedUsers": .number(Double(count))]
            return count
        }
    }

    /// SMS or e-mail are kept in the development outbox rather than sent (emulator mode, or an explicit setting).
    public var usesDevelopmentOutbox: Bool { smsSender is OutboxSMSSender || emailSender is OutboxEmailSender }

    /// The identities a provider has signed in with so far, from the first `limit` users: the emulator's account
    /// picker offers them again.
    public func signedInIdentities(projectID: String, providerID: String, limit: Int) async throws -> [ProviderUserInfo] {
        try await store.users(projectID: projectID, afterUID: nil, limit: limit)
            .flatMap { user in user.providers.filter { $0.providerID == providerID } }
    }
}
