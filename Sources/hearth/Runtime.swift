import Foundation
import HearthCore
import HearthEngine
import HearthMessaging
import HearthPostgres
import HearthProviders
import HearthSQLite
import HearthServer
import HearthStore
import HearthTokens
import Logging

/// The running parts of a Hearth server, built from its configuration.
struct Runtime {
    let store: AuthStore
    let keyRing: SigningKeyRing
    let engine: AuthEngine
    let hasher: PasswordHasher

    static func logger(_ configuration: ServerConfiguration) -> Logger {
        // Before the first logger is made: loggers keep the handler of their birth.
        (LogFormat(rawValue: configuration.logFormat) ?? .text).bootstrap()
        var logger = Logger(label: "hearth")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
        return logger
    }

    /// Opens the configured store: PostgreSQL when a URL is given, otherwise SQLite under the data directory.
    static func openStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> AuthStore {
        if let url = configuration.databaseURL {
            return try await PostgresAuthStore.connect(url: url, logger: logger)
        }
        // Only the server's user may read the database (password hashes, sealed keys) whatever the umask: files
        // SQLite creates later (WAL, shared memory, journals) inherit the mask, existing ones are tightened.
        umask(0o077)
        let files = FileManager.default
        try files.createDirectory(atPath: configuration.dataDir, withIntermediateDirectories: true)
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: configuration.dataDir)
        let path = URL(fileURLWithPath: configuration.dataDir).appendingPathComponent("hearth.sqlite").path
        let store = try SQLiteAuthStore(
            path: path, durability: SQLiteAuthStore.Durability(rawValue: configuration.sqliteDurability) ?? .normal)
        for file in [path, path + "-wal", path + "-shm"] where files.fileExists(atPath: file) {
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        return store
    }

    /// - Parameter emulator: the first key is generated only when something needs an RS256 signature.
    static func keyRing(_ configuration: ServerConfiguration, store: AuthStore, emulator: Bool = false) throws
        -> SigningKeyRing
    {
        let kek = try configuration.keyEncryptionKey.map(KeyEncryptionKey.init(base64:))
        return SigningKeyRing(store: store, kek: kek, clock: .system, generatesFirstKeyOnDemand: emulator)
    }

    /// - Parameter emulator: Firebase Auth Emulator parity: unsigned tokens, any project id, `Bearer owner` as admin.
    static func start(_ configuration: ServerConfiguration, logger: Logger, emulator: Bool = false) async throws
        -> Runtime
    {
        try configuration.validate()
        let store = try await openStore(configuration, logger: logger)
        let keyRing = try keyRing(configuration, store: store, emulator: emulator)
        try await keyRing.load()
        let hashing = configuration.passwordHashing
        let hasher = PasswordHasher(
            threads: hashing.threads, parameters: hashing.scrypt, niceness: Int32(hashing.niceness),
            whenIdle: MallocSettings.releaseFreeMemory)
        let projects = ProjectRegistry(
            defaultProjectID: configuration.defaultProject, projects: configuration.resolvedProjects,
            servesAnyProject: emulator
        )
        try await loadProjectSettings(projects, store: store, logger: logger)
        let engine = AuthEngine(
            store: store, projects: projects, idTokens: IDTokenService(keyRing: keyRing, unsigned: emulator),
            hasher: hasher,
            smsSender: configuration.sms.makeSender(store: store, logger: logger, emulator: emulator),
            emailSender: try configuration.email.makeSender(store: store, logger: logger, emulator: emulator),
            recaptcha: RecaptchaVerifier(configuration: configuration.recaptcha),
            silentPush: try configuration.apns.isConfigured ? APNsSender(configuration: configuration.apns) : nil,
            silentPushTimeoutSeconds: configuration.apns.suggestedTimeoutSeconds,
            identityProviders: IdentityProviders(timeout: .seconds(configuration.identityProviderTimeoutSeconds)),
            logger: logger)
        return Runtime(store: store, keyRing: keyRing, engine: engine, hasher: hasher)
    }

    /// Applies the settings changed at run time through the admin config API; one that no longer fits the
    /// config file is reported and skipped rather than stopping the server.
    static func loadProjectSettings(_ projects: ProjectRegistry, store: AuthStore, logger: Logger) async throws {
        for problem in try await projects.load(from: store) {
            logger.warning(
                "stored settings of project \(problem.projectID) not applied: \(problem.error.message)")
        }
    }

    func shutdown() async {
        try? await hasher.shutdown()
        try? await store.shutdown()
    }
}
