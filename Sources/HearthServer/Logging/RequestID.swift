import HTTPTypes
import Hummingbird
import Logging

/// The id of the request a task is serving, put on every log line written while serving it (by the engine,
/// the store, anything) through the logging system's metadata provider, and returned as `X-Request-Id`.
public enum RequestID {
    @TaskLocal public static var current: String?

    public static let header = HTTPField.Name("X-Request-Id")!

    /// Adds `request` to every log line written inside a request's task.
    public static let metadataProvider = Logger.MetadataProvider {
        current.map { ["request": .string($0)] } ?? [:]
    }

    /// An id a proxy or client sent, if it is short and plain enough to put in a log line unquoted; otherwise a
    /// new one (so a client cannot forge line breaks or other requests' ids into the log).
    static func accept(_ sent: String?) -> String {
        if let sent, (1...64).contains(sent.utf8.count),
            sent.utf8.allSatisfy({ $0.isPlainIDByte })
        {
            return sent
        }
        return make()
    }

    /// 16 hex digits from the system's random source.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension UInt8 {
    fileprivate var isPlainIDByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == 0x2D || self == 0x2E || self == 0x5F || self == 0x3A
    }
}

/// Gives each request an id (the caller's `X-Request-Id` when it is plain, else a new one), serves it with that
/// id in the task-local `RequestID.current`, and answers with the id in `X-Request-Id`.
public struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let id = RequestID.accept(request.headers[RequestID.header])
        var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        response.headers[RequestID.header] = id
        return response
    }
}
