import Foundation
import Synchronization

/// Where `Auth` keeps the signed-in user and their tokens between launches.
///
/// Implement it to keep users somewhere else (an encrypted database, a test double). Calls are
/// synchronous and may come from any thread.
public protocol AuthUserStore: Sendable {
    /// The bytes saved under `key`, or nil when nothing is.
    func data(forKey key: String) throws -> Data?
    /// Replaces what is saved under `key`.
    func setData(_ data: Data, forKey key: String) throws
    /// Forgets `key`; forgetting a missing key is not an error.
    func removeData(forKey key: String) throws
    /// The store the processes in `accessGroup` share (an app and its extensions), for
    /// `Auth.useUserAccessGroup(_:)`; nil when this store cannot share. `sharedAcrossDevices` asks
    /// for iCloud Keychain where there is one.
    func store(forAccessGroup accessGroup: String, sharedAcrossDevices: Bool) -> (any AuthUserStore)?
}

extension AuthUserStore {
    public func store(forAccessGroup accessGroup: String, sharedAcrossDevices: Bool) -> (any AuthUserStore)? {
        nil
    }
}

/// Keeps users in memory only: they are gone when the process ends.
public final class InMemoryUserStore: AuthUserStore {
    private let entries = Mutex<[String: Data]>([:])

    public init() {}

    public func data(forKey key: String) throws -> Data? { entries.withLock { $0[key] } }
    public func setData(_ data: Data, forKey key: String) throws { entries.withLock { $0[key] = data } }
    public func removeData(forKey key: String) throws { _ = entries.withLock { $0.removeValue(forKey: key) } }
}

/// The platform's store: the Keychain where there is one, else files in application support.
enum DefaultUserStore {
    static func make() -> any AuthUserStore {
        #if canImport(Security)
            KeychainUserStore()
        #else
            FileUserStore()
        #endif
    }
}
