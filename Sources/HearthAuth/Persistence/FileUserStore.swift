import Foundation

/// Keeps each user in a JSON file readable only by its owner (0600), in a 0700 directory.
///
/// The default on Linux: `<application support>/HearthAuth`, which is `$XDG_DATA_HOME` or
/// `~/.local/share` there. Files are replaced atomically, so a crash never leaves half a user.
public struct FileUserStore: AuthUserStore {
    public let directory: URL

    /// - Parameter directory: where the files go; by default `HearthAuth` in application support.
    public init(directory: URL? = nil) {
        self.directory =
            directory
            ?? FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first!
            .appendingPathComponent("HearthAuth", isDirectory: true)
    }

    /// `<directory>/AccessGroups/<group>`: every process of this OS user that configures the same
    /// directory (the default one, say) and group sees the same user. Linux has no per-app sandbox,
    /// so the files stay 0600 to the user; `sharedAcrossDevices` has no meaning here.
    public func store(forAccessGroup accessGroup: String, sharedAcrossDevices: Bool) -> (any AuthUserStore)? {
        FileUserStore(
            directory: directory.appendingPathComponent("AccessGroups", isDirectory: true)
                .appendingPathComponent(Self.safeName(accessGroup), isDirectory: true))
    }

    static func safeName(_ key: String) -> String {
        String(
            key.unicodeScalars.map {
                CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0) ? Character($0) : "_"
            })
    }

    func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(Self.safeName(key) + ".json")
    }

    public func data(forKey key: String) throws -> Data? {
        let url = fileURL(forKey: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    public func setData(_ data: Data, forKey key: String) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let target = fileURL(forKey: key)
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).tmp")
        // Created 0600 from the start: the tokens are never readable by others, not even briefly.
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw AuthErrorCode.keychainError.error(message: "Cannot create \(temporary.path)") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == data.count, synced == 0, rename(temporary.path, target.path) == 0 else {
            unlink(temporary.path)
            throw AuthErrorCode.keychainError.error(message: "Cannot write \(target.path)")
        }
    }

    public func removeData(forKey key: String) throws {
        let url = fileURL(forKey: key)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }
}
