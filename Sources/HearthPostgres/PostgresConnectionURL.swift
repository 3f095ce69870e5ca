import Foundation
import PostgresNIO

/// A `postgres://user:pass@host:port/db?sslmode=…` URL turned into a `PostgresClient` configuration.
///
/// `sslmode` follows libpq: `disable`, `allow`/`prefer` (TLS when the server offers it), `require`
/// (TLS, certificate not checked), `verify-ca` (chain checked), `verify-full` (chain and host name checked).
/// Without `sslmode`, loopback hosts connect in plain text and every other host as `prefer`.
/// Other query parameters are refused rather than ignored, so a setting libpq would honour is never silently dropped.
public struct PostgresConnectionURL: Sendable {
    /// Host, port, credentials, database and TLS as the URL gives them; pool options keep their defaults.
    public var configuration: PostgresClient.Configuration
    /// The same for one connection outside the pool (the change-stamp listener's).
    var connectionConfiguration: PostgresConnection.Configuration
    /// The URL without user name and password, for logs.
    public var redacted: String

    /// Parses `string`; throws `PostgresURLError` for anything Hearth would have to guess about.
    public init(_ string: String) throws {
        guard let url = URLComponents(string: string), let scheme = url.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw PostgresURLError("expected postgres://user:pass@host:port/db")
        }
        guard var host = url.host, !host.isEmpty else { throw PostgresURLError("the URL has no host") }
        // URLComponents keeps the brackets of an IPv6 literal; sockets want the bare address.
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let user = url.user, !user.isEmpty else { throw PostgresURLError("the URL has no user name") }
        let port = url.port ?? 5432
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path

        var sslMode: String?
        for item in url.queryItems ?? [] {
            guard item.name == "sslmode" else {
                throw PostgresURLError("unsupported URL parameter '\(item.name)'; only sslmode is understood")
            }
            sslMode = item.value
        }
        let tls = try Self.tls(sslMode: sslMode ?? (Self.isLoopback(host) ? "disable" : "prefer"))

        configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: url.password,
            database: database.isEmpty ? nil : database, tls: tls.pool)
        connectionConfiguration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: url.password,
            database: database.isEmpty ? nil : database, tls: tls.connection)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        redacted = "postgres://\(shownHost):\(port)/\(database)"
    }

    /// The pool's TLS setting and the same for a single connection (which wants a built context).
    static func tls(sslMode: String) throws -> (
        pool: PostgresClient.Configuration.TLS, connection: PostgresConnection.Configuration.TLS
    ) {
        func tls(_ verification: CertificateVerification, required: Bool) throws -> (
            pool: PostgresClient.Configuration.TLS, connection: PostgresConnection.Configuration.TLS
        ) {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = verification
            let context = try NIOSSLContext(configuration: tls)
            return required ? (.require(tls), .require(context)) : (.prefer(tls), .prefer(context))
        }
        switch sslMode {
        case "disable": return (.disable, .disable)
        case "allow", "prefer": return try tls(.none, required: false)
        case "require": return try tls(.none, required: true)
        case "verify-ca": return try tls(.noHostnameVerification, required: true)
        case "verify-full": return try tls(.fullVerification, required: true)
        default:
            throw PostgresURLError(
                "unknown sslmode '\(sslMode)'; use disable, allow, prefer, require, verify-ca or verify-full")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

/// A database URL Hearth cannot use; the message says what is wrong without repeating the password.
public struct PostgresURLError: Error, CustomStringConvertible, Equatable {
    public var description: String

    init(_ description: String) {
        self.description = "invalid PostgreSQL URL: \(description)"
    }
}
