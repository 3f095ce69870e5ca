import Foundation
import HearthCore
import HearthEngine
import HearthMessaging
import HearthPages
import HearthProviders
import HearthSQLite
import HearthServer
import HearthStore
import HearthTokens
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// Test output shows failures, not the engine's account events: warnings and up, unless HEARTH_TEST_LOG_LEVEL
/// asks for more (`debug`, `info`, …).
public let testLogger: Logger = {
    var logger = Logger(label: "hearth.engine")
    logger.logLevel =
        ProcessInfo.processInfo.environment["HEARTH_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    return logger
}()

/// A clock tests move by hand. A `live` one runs with real time (plus what was advanced), for tests whose other
/// party reads the system clock (HearthAdmin signs with `Date()`), however long the suite makes them wait.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>
    private let live: Bool
    public init(_ start: Date = Date(), live: Bool = false) {
        current = Mutex(live ? Date(timeIntervalSince1970: 0) : start)
        self.live = live
    }
    public func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    public var authClock: AuthClock {
        AuthClock {
            let base = self.current.withLock { $0 }
            return self.live ? Date().addingTimeInterval(base.timeIntervalSince1970) : base
        }
    }
}

/// A complete Hearth (SQLite in a temp dir, real keys, real hashing at test cost) behind its router.
public struct Harness: Sendable {
    public let engine: AuthEngine
    public let store: SQLiteAuthStore
    public let clock: ManualClock
    public let directory: URL
    public let projectID: String
    /// Firebase Auth Emulator parity: unsigned tokens, any project, `Bearer owner`, the /emulator routes.
    public let emulator: Bool

    public static let apiKey = "test-api-key"
    /// One hashing pool for every harness: a pool each would leave two idle threads behind per test.
    public static let hasher = PasswordHasher(threads: 2, parameters: ScryptParameters(logN: 10, r: 8, p: 1))

    public init(
        smsSender: SMSSender? = nil, emailSender: EmailSender? = nil, recaptcha: RecaptchaVerifier? = nil,
        silentPush: SilentPushSender? = nil, emulator: Bool = false, providerTimeout: Duration = .seconds(60),
        liveClock: Bool = false, kek: KeyEncryptionKey? = nil,
        configure: (inout ProjectConfig) -> Void = { _ in }
    ) async throws {
        self.emulator = emulator
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteAuthStore(path: directory.appendingPathComponent("hearth.sqlite").path)
        clock = ManualClock(live: liveClock)
        projectID = "test-project"
        var project = ProjectConfig(projectID: projectID, apiKeys: [Self.apiKey])
        configure(&project)
        let keyRing = SigningKeyRing(store: store, kek: kek, clock: clock.authClock)
        try await keyRing.load()
        engine = AuthEngine(
            store: store,
            projects: ProjectRegistry(defaultProjectID: projectID, projects: [project], servesAnyProject: emulator),
            idTokens: IDTokenService(keyRing: keyRing, unsigned: emulator),
            hasher: Self.hasher,
            clock: clock.authClock, smsSender: smsSender,
            emailSender: emailSender ?? OutboxEmailSender(store: store, logger: testLogger),
            recaptcha: recaptcha, silentPush: silentPush,
            identityProviders: IdentityProviders(timeout: providerTimeout, clock: clock.authClock),
            logger: testLogger)
    }

    /// Runs `body` against the router without a socket; `routes` adds a test's own routes beside the pages.
    public func run(
        routes: (Router<HearthRequestContext>) -> Void = { _ in }, _ body: @Sendable (Client) async throws -> Void
    ) async throws {
        let app = Application(
            router: HearthApplication.router(
                engine: engine,
                pages: {
                    ActionPages(engine: engine).register(on: $0)
                    AuthHandlerPage(engine: engine, publicURL: nil).register(on: $0)
                    EmulatorSignInPages(engine: engine).register(on: $0)
                    routes($0)
                }),
            logger: testLogger)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.test(.router) { client in try await body(Client(client: client)) }
    }
}

/// Thin JSON helpers over HummingbirdTesting's client.
public struct Client: Sendable {
    public let client: any TestClientProtocol

    public init(client: any TestClientProtocol) { self.client = client }

    public struct Reply: Sendable {
        public let status: Int
        public let json: JSONValue
        public let headers: HTTPFields

        public init(status: Int, json: JSONValue, headers: HTTPFields) {
            self.status = status
            self.json = json
            self.headers = headers
        }

        /// The Firebase error code of an error reply (`CODE` or `CODE : detail`).
        public var errorCode: String? {
            json["error"]?["message"]?.stringValue?.components(separatedBy: " : ").first
        }
        public subscript(key: String) -> JSONValue? { json[key] }
        public func string(_ key: String) -> String? { json[key]?.stringValue }
    }

    public func post(
        _ path: String, _ body: JSONValue, key: String? = Harness.apiKey, headers: HTTPFields = [:]
    ) async throws -> Reply {
        try await send(path, method: .post, body: ByteBuffer(string: body.jsonText), key: key, headers: headers)
    }

    public func send(
        _ path: String, method: HTTPRequest.Method, body: ByteBuffer? = nil, key: String? = Harness.apiKey,
        contentType: String = "application/json", headers: HTTPFields = [:]
    ) async throws -> Reply {
        var uri = path
        if let key { uri += (path.contains("?") ? "&" : "?") + "key=\(key)" }
        var allHeaders = headers
        allHeaders[.contentType] = contentType
        return try await client.execute(uri: uri, method: method, headers: allHeaders, body: body) { response in
            let text = String(buffer: response.body)
            let json = text.isEmpty ? JSONValue.null : ((try? JSONValue(parsing: text)) ?? .string(text))
            return Reply(status: Int(response.status.code), json: json, headers: response.headers)
        }
    }

    // MARK: Flows

    public func signUp(email: String? = nil, password: String? = nil) async throws -> Reply {
        var body: [String: JSONValue] = ["returnSecureToken": true]
        if let email { body["email"] = .string(email) }
        if let password { body["password"] = .string(password) }
        return try await post("/v1/accounts:signUp", .object(body))
    }

    public func signIn(_ email: String, _ password: String) async throws -> Reply {
        try await post(
            "/v1/accounts:signInWithPassword",
            ["email": .string(email), "password": .string(password), "returnSecureToken": true])
    }

    public func lookup(_ idToken: String) async throws -> Reply {
        try await post("/v1/accounts:lookup", ["idToken": .string(idToken)])
    }

    public func refresh(_ refreshToken: String) async throws -> Reply {
        try await post("/v1/token", ["grantType": "refresh_token", "refreshToken": .string(refreshToken)])
    }
}

/// The payload of a JWT, unverified, for asserting claims.
public func claims(of token: String?) throws -> [String: JSONValue] {
    let token = try #require(token)
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    try #require(parts.count == 3)
    let payload = try #require(Base64URL.decode(parts[1]))
    return try #require(try JSONValue.parse(payload).objectValue)
}

/// Serves `router` on a free port of 127.0.0.1 while `body` runs with its base URL, then stops it: the real
/// local HTTP servers that stand in for SMS providers and identity providers.
public func serveOnLoopback(_ router: Router<BasicRequestContext>, _ body: @Sendable (String) async throws -> Void)
    async throws
{
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress!.port!) }, logger: testLogger)
    try await runStoppingGracefully(app) {
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body("http://127.0.0.1:\(port)")
    }
}

/// A port nothing listens on: bound, then closed.
public func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Runs `app` while `body` runs, then shuts it down gracefully. Cancelling it instead makes Hummingbird log every
/// open connection as an error ("Waiting on child channel: CancellationError()"), which buried the failures.
public func runStoppingGracefully(_ app: some Service, _ body: () async throws -> Void) async throws {
    let services = ServiceGroup(
        configuration: .init(services: [app], gracefulShutdownSignals: [], logger: testLogger))
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await services.run() }
        try await body()
        await services.triggerGracefulShutdown()
        try await group.waitForAll()
    }
}
