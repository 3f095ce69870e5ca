import AsyncHTTPClient
import HearthCore
import NIOCore

/// The HTTP client every call the server makes goes through (identity providers, Game Center certificates,
/// blocking functions, SMS and e-mail webhooks, reCAPTCHA, APNs): no redirect is ever followed, since a redirect
/// on an allowed host would otherwise carry the call (a signed event, a key fetch) to one the configuration never
/// named; a 3xx is an answer like any other non-2xx. Each URL is checked against `OutboundURLPolicy` first.
public enum OutboundHTTP {
    /// Shared for the life of the process, like `HTTPClient.shared`, with redirects disallowed.
    public static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

    /// A refused connection fails the call at once rather than being retried until the call's deadline: a webhook
    /// or blocking function that is down answers its 503 (or the provider's error) in milliseconds, not after
    /// holding the request for the whole timeout.
    public static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }
}

/// A URL `OutboundURLPolicy` refuses; the call was not made.
public struct OutboundURLRefused: Error, CustomStringConvertible {
    public let url: String
    public let reason: String
    public var description: String { "outbound call refused: the URL \(reason)" }
}

extension HTTPClient {
    /// `execute` for the server's own outbound calls: refused before any connection when `OutboundURLPolicy`
    /// refuses the URL.
    public func executeOutbound(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        if let reason = OutboundURLPolicy.refusal(request.url) {
            throw OutboundURLRefused(url: request.url, reason: reason)
        }
        return try await execute(request, timeout: timeout)
    }
}
