#if canImport(Security)
    import Foundation
    import Security

    /// Keeps each user as a generic-password Keychain item, available after first unlock and never
    /// synced to other devices, like FirebaseAuth's own storage.
    public struct KeychainUserStore: AuthUserStore {
        public let service: String
        /// A Keychain access group (`TEAMID.com.example.shared`) the app and its extensions list in
        /// their `keychain-access-groups` entitlement; nil for the app's default group.
        public let accessGroup: String?
        /// Stored in iCloud Keychain and synced to the user's other devices.
        public let synchronizable: Bool

        public init(service: String = "HearthAuth", accessGroup: String? = nil, synchronizable: Bool = false) {
            self.service = service
            self.accessGroup = accessGroup
            self.synchronizable = synchronizable
        }

        public func store(forAccessGroup accessGroup: String, sharedAcrossDevices: Bool) -> (any AuthUserStore)? {
            KeychainUserStore(service: service, accessGroup: accessGroup, synchronizable: sharedAcrossDevices)
        }

        private func query(_ key: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: key,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            if synchronizable { query[kSecAttrSynchronizable as String] = kCFBooleanTrue }
            return query
        }

        public func data(forKey key: String) throws -> Data? {
            var q = query(key)
            q[kSecReturnData as String] = true
            q[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(q as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw Self.failure(status) }
            return result as? Data
        }

        public func setData(_ data: Data, forKey key: String) throws {
            // Synced items cannot be "this device only".
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: synchronizable
                    ? kSecAttrAccessibleAfterFirstUnlock : kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            var status = SecItemUpdate(query(key) as CFDictionary, attributes as CFDictionary)
            if status == errSecItemNotFound {
                status = SecItemAdd(query(key).merging(attributes) { $1 } as CFDictionary, nil)
            }
            guard status == errSecSuccess else { throw Self.failure(status) }
        }

        public func removeData(forKey key: String) throws {
            let status = SecItemDelete(query(key) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.failure(status) }
        }

        private static func failure(_ status: OSStatus) -> NSError {
            AuthErrorCode.keychainError.error(
                message: "Keychain error \(status)",
                underlying: NSError(domain: NSOSStatusErrorDomain, code: Int(status)))
        }
    }
#endif
