import HearthCore
import HearthEngine
import HearthTokens
import Hummingbird
import Logging

/// The HTTP face of Hearth: routes and middleware over an `AuthEngine`.
public enum HearthApplication {
    /// The router with every route and middleware; tests drive it without a socket. An engine in emulator mode
    /// (`AuthEngine.isEmulator`) also gets the Firebase emulator's development routes (`/emulator/v1/…`).
    /// `pages` adds routes from modules above this one (HearthPages' action handler).
    public static func router(
        engine: AuthEngine, publicKeyCacheSeconds: Int = 3600,
        pages: (Router<HearthRequestContext>) -> Void = { _ in }
    ) -> Router<HearthRequestContext> {
        let router = Router(context: HearthRequestContext.self)
        // Every request at debug level (HEARTH_LOG_LEVEL=debug); account events are logged at info by the engine.
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: ErrorEnvelopeMiddleware())
        router.add(middleware: FirebaseCORSMiddleware())
        AuthRoutes(engine: engine).register(on: router)
        OAuthRoutes(engine: engine).register(on: router)
        PublicKeyRoutes(keyRing: engine.idTokens.keyRing, cacheSeconds: publicKeyCacheSeconds).register(on: router)
        if engine.isEmulator { EmulatorRoutes(engine: engine).register(on: router) }
        pages(router)
        router.get("/") { _, _ in
            WireResponse.json(["service": "hearth", "status": "ok"])
        }
        return router
    }

    /// A server listening on `host:port` (port 0: any free port, reported to `onServerRunning`).
    public static func make(
        engine: AuthEngine, host: String, port: Int, publicKeyCacheSeconds: Int = 3600,
        pages: (Router<HearthRequestContext>) -> Void = { _ in }, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(engine: engine, publicKeyCacheSeconds: publicKeyCacheSeconds, pages: pages),
            configuration: .init(address: .hostname(host, port: port), serverName: "hearth"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
