/// Sharing the signed-in user between an app and its extensions (Keychain access groups on Apple
/// platforms, a shared directory with `FileUserStore`), as FirebaseAuth's `useUserAccessGroup`.
extension Auth {
    /// The access group the current user is kept in, or nil for the app's own store.
    public var userAccessGroup: String? { state.withLock { $0.userAccessGroup } }

    /// Keeps the user in iCloud Keychain (synchronizable items) when an access group is used. Set it
    /// before `useUserAccessGroup(_:)`. Apple platforms only: `FileUserStore` ignores it.
    public var shareAuthStateAcrossDevices: Bool {
        get { state.withLock { $0.shareAuthStateAcrossDevices } }
        set { state.withLock { $0.shareAuthStateAcrossDevices = newValue } }
    }

    /// Switches to the user kept in `accessGroup` (nil: the app's own store), which becomes the
    /// current user, or signs out here if the group holds none. Moving into a group forgets the
    /// user kept in the app's own store, as FirebaseAuth does, so each process sees one user.
    ///
    /// Every process that uses the same group and API key sees the same user. Throws
    /// `keychainError` when the app's `AuthUserStore` cannot share (`store(forAccessGroup:…)` nil).
    public func useUserAccessGroup(_ accessGroup: String?) throws {
        let store = try userStore(forAccessGroup: accessGroup)
        let record = loadStoredRecord(from: store, key: storeKey(accessGroup))
        let previous = try state.withLock { s in
            if s.userAccessGroup == nil, accessGroup != nil { try s.userStore.removeData(forKey: storeKey(nil)) }
            let previous = s.currentUser
            s.userStore = store
            s.userAccessGroup = accessGroup
            s.currentUser = record.map { User(record: $0, auth: self) }
            return (previous, s.currentUser)
        }
        notify(previous: previous.0.map { ($0.uid, $0.record.tokens.idToken) }, current: previous.1)
    }

    /// The user kept in `accessGroup` (nil: the app's own store), without making it current; nil
    /// when none is.
    public func getStoredUser(forAccessGroup accessGroup: String?) throws -> User? {
        let store = try userStore(forAccessGroup: accessGroup)
        return loadStoredRecord(from: store, key: storeKey(accessGroup)).map { User(record: $0, auth: self) }
    }

    /// The tokens the access group's store holds for `uid`, if the current user lives in a group (where
    /// other processes write too); nil otherwise.
    func sharedStoredTokens(uid: String) -> TokenSet? {
        state.withLock { s in
            guard let group = s.userAccessGroup, s.currentUser?.uid == uid else { return nil }
            return loadStoredRecord(from: s.userStore, key: storeKey(group)).flatMap { $0.uid == uid ? $0.tokens : nil }
        }
    }

    private func userStore(forAccessGroup accessGroup: String?) throws -> any AuthUserStore {
        guard let accessGroup else { return hearthApp.userStore }
        let shared = state.withLock { $0.shareAuthStateAcrossDevices }
        guard let store = hearthApp.userStore.store(forAccessGroup: accessGroup, sharedAcrossDevices: shared) else {
            throw AuthErrorCode.keychainError.error(
                message: "The app's AuthUserStore (\(type(of: hearthApp.userStore))) cannot share an access group.")
        }
        return store
    }
}
