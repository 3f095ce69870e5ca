import Foundation
import HearthCore
import HearthEngine
import HearthMessaging
import HearthPostgres
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
        var logger = Logger(label: "hearth")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
        return logger
    }

    /// Opens the configured store: PostgreSQL when a URL is given, otherwise SQLite under the data directory.
    static func openStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> AuthStore {
        if let url = configuration.databaseURL {
            return try await PostgresAuthStore.connect(url: url, logger: logger)
        }
        try FileManager.default.createDirectory(atPath: configuration.dataDir, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: configuration.dataDir).appendingPathComponent("hearth.sqlite").path
        return try SQLiteAuthStore(
            path: path, durability: SQLiteAuthStore.Durability(rawValue: configuration.sqliteDurability) ?? .normal)
    }

    static func keyRing(_ configuration: ServerConfiguration, store: AuthStore) throws -> SigningKeyRing {
        let kek = try configuration.keyEncryptionKey.map(KeyEncryptionKey.init(base64:))
        return SigningKeyRing(store: store, kek: kek, clock: .system)
    }

    static func start(_ configuration: ServerConfiguration, logger: Logger) async throws -> Runtime {
        try configuration.validate()
        let store = try await openStore(configuration, logger: logger)
        let keyRing = try keyRing(configuration, store: store)
        try await keyRing.load()
        let hashing = configuration.passwordHashing
        let hasher = PasswordHasher(
            threads: hashing.threads, parameters: hashing.scrypt, niceness: Int32(hashing.niceness))
        let engine = AuthEngine(
            store: store,
            projects: ProjectRegistry(defaultProjectID: configuration.defaultProject, projects: configuration.projects),
            idTokens: IDTokenService(keyRing: keyRing), hasher: hasher,
            smsSender: configuration.sms.makeSender(store: store, logger: logger),
            recaptcha: RecaptchaVerifier(configuration: configuration.recaptcha), logger: logger)
        return Runtime(store: store, keyRing: keyRing, engine: engine, hasher: hasher)
    }

    func shutdown() async {
        try? await hasher.shutdown()
        try? await store.shutdown()
    }
}
