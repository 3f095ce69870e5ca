import ArgumentParser
import Foundation
import HearthConsole
import HearthMessaging
import HearthPages
import HearthServer
import Hummingbird
import Logging
import ServiceLifecycle

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server (the default command).",
        discussion: """
            With no configuration at all it listens on 127.0.0.1:9099, keeps its data in ./.hearth/hearth.sqlite, \
            and serves one project, demo-hearth, that accepts any API key (as the Firebase emulator does) until \
            API keys are configured for it. Stops cleanly on SIGINT or SIGTERM.

            Environment: HEARTH_CONFIG, HEARTH_HOST, HEARTH_PORT, HEARTH_DATA_DIR, HEARTH_DATABASE_URL, \
            HEARTH_PROJECT, HEARTH_KEY_ENCRYPTION_KEY (base64 of 32 bytes; encrypts signing keys at rest), \
            HEARTH_PASSWORD_HASH_THREADS, HEARTH_LOG_LEVEL, HEARTH_PUBLIC_URL, HEARTH_SMTP_PASSWORD, \
            HEARTH_EMAIL_WEBHOOK_SECRET, HEARTH_TRUSTED_PROXIES (comma-separated CIDRs of reverse proxies whose \
            X-Forwarded-For is believed), HEARTH_TLS_CERT, HEARTH_TLS_KEY.

            TLS without a proxy: --tls-cert and --tls-key (PEM files) make the API listen for HTTPS only, with \
            HTTP/2 and HTTP/1.1 offered by ALPN. SIGHUP re-reads both files (after a renewal): new connections get \
            the new certificate, open ones keep theirs, and unusable files leave the current certificate in place. \
            The operator's listener stays plain HTTP on loopback.
            """)

    @OptionGroup var options: ConfigurationOptions

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1). Env: HEARTH_HOST.")
    var host: String?

    @Option(name: .long, help: "Port to listen on; 0 picks a free one (default 9099). Env: HEARTH_PORT.")
    var port: Int?

    @Option(
        name: .long,
        help:
            "Port of the operator's listener (/healthz, /readyz, /metrics, the console at /console/); default: the API port + 1 (0 with --port 0: any free port). Env: HEARTH_ADMIN_PORT."
    )
    var adminPort: Int?

    @Option(name: .long, help: "Address of the operator's listener (default 127.0.0.1). Env: HEARTH_ADMIN_HOST.")
    var adminHost: String?

    @Option(
        name: .long,
        help:
            "Origin operators reach the operator listener at through a proxy (e.g. https://admin.example.com); the console answers to it besides the loopback names. Env: HEARTH_CONSOLE_ORIGIN."
    )
    var consoleOrigin: String?

    @Option(
        name: .long,
        help: "PEM certificate chain (leaf first) to serve HTTPS with; needs --tls-key. Env: HEARTH_TLS_CERT.")
    var tlsCert: String?

    @Option(name: .long, help: "PEM private key of --tls-cert. Env: HEARTH_TLS_KEY.")
    var tlsKey: String?

    @Flag(
        name: .long,
        help:
            "Development and CI mode, a drop-in for the Firebase Auth Emulator: unsigned (alg none) tokens, 'Authorization: Bearer owner' accepted as admin, any project id served, unsigned custom tokens accepted, and the /emulator/v1 routes (accounts reset, config, oobCodes, verificationCodes). Never expose it publicly. Env: HEARTH_EMULATOR=1."
    )
    var emulator = false

    func run() async throws {
        var configuration = try options.resolve()
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        let logger = Runtime.logger(configuration)
        _ = AdminListener.registry  // metrics from the first request on
        let emulatorMode = emulator || ProcessInfo.processInfo.environment["HEARTH_EMULATOR"] == "1"
        let tls = try tlsCertificates()
        let runtime: Runtime
        do {
            runtime = try await Runtime.start(configuration, logger: logger, emulator: emulatorMode)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        logger.info("store: \(runtime.store.description)")
        switch configuration.sms.effectiveProvider(emulator: emulatorMode) {
        case nil:
            logger.warning(
                "SMS: no provider configured (sms.provider); phone sign-in works for test numbers only, other numbers are refused"
            )
        case .outbox?:
            logger.notice("SMS: development outbox; verification codes are logged and kept in the store, no SMS is sent")
        case let provider?:
            logger.info("SMS: \(provider.rawValue)")
        }
        switch configuration.email.provider {
        case nil where emulatorMode, .outbox?:
            logger.notice("e-mail: development outbox; action links are logged and kept in the store, no mail is sent")
        case nil:
            logger.warning(
                "e-mail: no sender configured (email.provider); password-reset, verification and sign-in links will be refused"
            )
        case let provider?:
            logger.info("e-mail: \(provider.rawValue)")
        }
        for project in runtime.engine.projects.all {
            if project.apiKeys.isEmpty {
                logger.notice("project \(project.projectID) accepts any API key: configure apiKeys to restrict it")
            } else {
                logger.info("project \(project.projectID): \(project.apiKeys.count) API key(s)")
            }
        }

        // Keys rotated by `hearth keys rotate` or by another server reach this one within a minute (at once when one
        // of their tokens arrives);
        // rotated refresh tokens older than the reuse-detection window, and audit events older than
        // `auditRetentionDays`, are purged hourly.
        let auditRetentionDays = configuration.auditRetentionDays
        let housekeeping = Task {
            var minutes = 0
            while true {
                // Cancelled: the server is stopping, and nothing below should start (it would only fail).
                do { try await Task.sleep(for: .seconds(60)) } catch { break }
                try? await runtime.keyRing.load()
                try? await Runtime.loadProjectSettings(runtime.engine.projects, store: runtime.store, logger: logger)
                if minutes % 60 == 0 {
                    do { try await runtime.engine.purgeOldSessions() } catch where Task.isCancelled {
                        break  // stopping while it ran
                    } catch {
                        logger.warning("purging old refresh tokens failed", metadata: ["error": "\(error)"])
                    }
                    do {
                        _ = try await runtime.engine.purgeAuditEvents(olderThanDays: auditRetentionDays)
                    } catch where Task.isCancelled {
                        break
                    } catch {
                        logger.warning("purging old audit events failed", metadata: ["error": "\(error)"])
                    }
                }
                minutes += 1
            }
        }
        if emulatorMode {
            logger.warning(
                "emulator mode: unsigned tokens, 'Bearer owner' is an admin, /emulator/v1 routes expose codes; never expose this server publicly"
            )
        }
        var http = configuration.http
        http.maxConnections = DescriptorLimit.connectionCap(wanted: http.maxConnections, logger: logger)
        if !http.trustedProxies.isEmpty {
            logger.info("client addresses taken from X-Forwarded-For behind \(http.trustedProxies.joined(separator: ", "))")
        }
        let app = HearthApplication.make(
            engine: runtime.engine, host: configuration.host, port: configuration.port,
            publicKeyCacheSeconds: configuration.publicKeyCacheSeconds, http: http, tls: tls,
            pages: {
                ActionPages(engine: runtime.engine).register(on: $0)
                AuthHandlerPage(engine: runtime.engine, publicURL: configuration.publicURL).register(on: $0)
                EmulatorSignInPages(engine: runtime.engine).register(on: $0)
            }, logger: logger
        ) { [host = configuration.host] port in
            logger.info("hearth listening on \(tls == nil ? "http" : "https")://\(host):\(port)")
        }
        let reloadSignal = tls.map { TLSReloadSignal(certificates: $0, logger: logger) }
        let environment = ProcessInfo.processInfo.environment
        let operatorHost = adminHost ?? environment["HEARTH_ADMIN_HOST"] ?? "127.0.0.1"
        let operatorPort =
            adminPort ?? environment["HEARTH_ADMIN_PORT"].flatMap(Int.init)
            ?? (configuration.port == 0 ? 0 : configuration.port + 1)
        // A cheap read the server needs anyway: on SQLite it takes one of GRDB's readers, as lookups may.
        let watchdog = StoreWatchdog(store: runtime.store.description, logger: logger) {
            _ = try await runtime.store.signingKeys()
        }
        let watching = Task { await watchdog.run() }
        let admin = AdminListener.application(
            runtime: runtime, watchdog: watchdog, host: operatorHost, port: operatorPort, emulator: emulatorMode,
            console: ConsoleSettings(
                publicOrigin: consoleOrigin ?? environment["HEARTH_CONSOLE_ORIGIN"],
                projectID: configuration.defaultProject),
            logger: logger
        ) { port in
            logger.info("operator endpoints (/healthz, /readyz, /metrics, /console/) on http://\(operatorHost):\(port)")
        }
        // The operator's listener must never take the API down with it: if its port is taken, say so and serve on.
        // It is left running until the process ends rather than cancelled (Hummingbird logs a cancelled server as
        // an error); running it in the API's service group instead kept 4 MiB more of the binary resident.
        Task {
            do { try await admin.run() } catch is CancellationError {} catch {
                logger.error(
                    "operator endpoints could not start on \(operatorHost):\(operatorPort): \(error); the API serves on without them (set --admin-port)"
                )
            }
        }
        try await app.runService()
        reloadSignal?.cancel()
        housekeeping.cancel()
        // Ended before the store closes, so a probe cannot report the closing store as a failure.
        watching.cancel()
        await watching.value
        // Sign-in activity still buffered is stored before the store closes.
        await runtime.engine.flushActivity()
        await runtime.shutdown()
        logger.info("hearth stopped")
    }

    /// The certificate and key named by the flags or the environment, checked now so a bad file stops the start.
    func tlsCertificates() throws -> TLSCertificates? {
        let environment = ProcessInfo.processInfo.environment
        let certificate = tlsCert ?? environment["HEARTH_TLS_CERT"]
        let key = tlsKey ?? environment["HEARTH_TLS_KEY"]
        switch (certificate, key) {
        case (nil, nil): return nil
        case (let certificate?, let key?):
            do { return try TLSCertificates(certificatePath: certificate, keyPath: key) } catch {
                throw ValidationError("\(error)")
            }
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }
    }
}

/// Re-reads the TLS certificate and key on SIGHUP, the usual signal after a renewal (certbot's deploy hook,
/// `systemctl reload`).
final class TLSReloadSignal {
    private let source: any DispatchSourceSignal

    init(certificates: TLSCertificates, logger: Logger) {
        // The default action of SIGHUP ends the process; the dispatch source sees it only once it is ignored.
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            do {
                try certificates.reload()
                logger.notice("TLS certificate reloaded from \(certificates.certificatePath)")
            } catch {
                logger.error("TLS certificate not reloaded, the previous one stays in use: \(error)")
            }
        }
        source.resume()
    }

    func cancel() { source.cancel() }
}
