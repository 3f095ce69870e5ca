import Foundation
import HearthConsole
import HearthCore
import HearthServer
import Hummingbird
import Logging
import Metrics
import Prometheus

/// The operator's listener, apart from the API (loopback by default): `/healthz` (the process answers),
/// `/readyz` (the store answers within the watchdog's deadline and a signing key is loaded; 503 otherwise) and
/// `/metrics` (Prometheus text:
/// requests by route and status with latencies, sign-ins and sign-ups by provider, limit refusals, SMS sends,
/// signing-key age), and the console under `/console/` (HearthConsole).
enum AdminListener {
    /// Installs the process-wide metrics backend once; every `Counter`/`Timer` made afterwards lands in it.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    static func application(
        runtime: Runtime, watchdog: StoreWatchdog, host: String, port: Int, emulator: Bool, console: ConsoleSettings,
        logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let registry = Self.registry
        // The request context of the API's pages, so the console decodes forms with the one request decoder.
        let router = Router(context: HearthRequestContext.self)
        Console(engine: runtime.engine, settings: console).register(on: router)
        router.get("/healthz") { _, _ in jsonResponse(["status": "ok"]) }
        router.get("/readyz") { _, _ in
            var problems: [String] = []
            if let problem = await watchdog.check() { problems.append(problem) }
            if !emulator, (try? runtime.keyRing.currentSigner()) == nil { problems.append("no signing key") }
            guard problems.isEmpty else {
                return jsonResponse(["status": "unavailable", "problems": .array(problems.map(JSONValue.string))], status: .serviceUnavailable)
            }
            return jsonResponse(["status": "ready"])
        }
        router.get("/metrics") { _, _ in
            if let age = runtime.keyRing.currentKeyAge(now: Date()) {
                Gauge(label: "hearth_signing_key_age_seconds").record(age)
            }
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hearth-admin"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    static func jsonResponse(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.jsonBytes)))
    }
}
