import HearthCore
import HearthEngine
import HearthTokens
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore

/// The HTTP face of Hearth: routes and middleware over an `AuthEngine`.
public enum HearthApplication {
    /// The router with every route and middleware (`HearthRouter`); tests drive it without a socket. An engine in
    /// emulator mode (`AuthEngine.isEmulator`) also gets the Firebase emulator's development routes (`/emulator/v1/…`).
    /// `pages` adds routes from modules above this one (HearthPages' action handler).
    public static func router(
        engine: AuthEngine, publicKeyCacheSeconds: Int = 3600, http: HTTPSettings = .init(),
        pages: (Router<HearthRequestContext>) -> Void = { _ in }
    ) -> HearthRouter {
        let router = HearthRouter()
        router.add(middleware: HTTPFront(trustedProxies: http.trustedNetworks))
        AuthRoutes(engine: engine).register(on: router)
        OAuthRoutes(engine: engine).register(on: router)
        PublicKeyRoutes(keyRing: engine.idTokens.keyRing, cacheSeconds: publicKeyCacheSeconds).register(on: router)
        if engine.isEmulator { EmulatorRoutes(engine: engine).register(on: router) }
        pages(router.router)
        // What the Firebase Auth Emulator answers, so tools that wait for it to be ready work unchanged.
        let root = WireResponse.json(
            engine.isEmulator
                ? [
                    "authEmulator": [
                        "ready": true, "docs": "https://firebase.google.com/docs/emulator-suite",
                        "apiSpec": "/emulator/openapi.json",
                    ], "service": "hearth",
                ]
                : ["service": "hearth", "status": "ok"])
        router.get("/") { _, _ in root }
        return router
    }

    /// A server listening on `host:port` (port 0: any free port, reported to `onServerRunning`).
    /// `http` bounds connections: idle and request timeouts, and at most `maxConnections` at once (further
    /// clients wait in the accept queue rather than costing descriptors). With `tls`, the server speaks TLS only,
    /// offering HTTP/2 and HTTP/1.1 by ALPN.
    public static func make(
        engine: AuthEngine, host: String, port: Int, publicKeyCacheSeconds: Int = 3600, http: HTTPSettings = .init(),
        tls: TLSCertificates? = nil, pages: (Router<HearthRequestContext>) -> Void = { _ in }, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let requestTimeout = TimeAmount.seconds(Int64(http.requestTimeoutSeconds))
        let stream = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestDeadlineHandler(timeout: requestTimeout)],
            idleTimeout: .seconds(Int64(http.idleTimeoutSeconds)))
        let server: HTTPServerBuilder
        if let tls {
            let configuration = HTTP2UpgradeChannel.Configuration(
                idleTimeout: .seconds(Int64(http.idleTimeoutSeconds)), streamConfiguration: stream)
            server = HTTPServerBuilder { responder in
                try HTTP2UpgradeChannel(
                    tlsConfiguration: tls.serverConfiguration(), configuration: configuration, responder: responder)
            }
        } else {
            server = .http1(configuration: stream)
        }
        return Application(
            router: router(engine: engine, publicKeyCacheSeconds: publicKeyCacheSeconds, http: http, pages: pages),
            server: server,
            configuration: .init(
                address: .hostname(host, port: port), serverName: "hearth",
                availableConnectionsDelegate: MaximumAvailableConnections(http.maxConnections, logger: logger)),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
