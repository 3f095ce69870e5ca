import HearthCore
import HearthStore
import Hummingbird
import Logging

/// Turns every error into Firebase's envelope. An `AuthError` is the client's doing (4xx); an unreachable
/// database (`StoreUnavailable`) is a passing outage, answered 503 UNAVAILABLE so clients retry;
/// anything else is a Hearth bug, logged and answered 500 without internals.
enum ErrorEnvelope {
    static func response(for error: any Error, path: String, logger: Logger) -> Response {
        switch error {
        case let error as AuthError:
            return WireResponse.error(error)
        case let error as StoreUnavailable:
            logger.warning("database unavailable", metadata: ["error": "\(error)", "path": "\(path)"])
            return WireResponse.error(AuthError(.unavailable, "The service is currently unavailable."))
        case let error as HTTPError:
            switch error.status {
            case .notFound: return WireResponse.error(AuthError(.notFound, "Not Found"))
            case .contentTooLarge: return WireResponse.error(AuthError(.payloadTooLarge, "Request payload too large."))
            case .methodNotAllowed: return WireResponse.error(AuthError(.methodNotAllowed, "Method Not Allowed"))
            default:
                if (400..<500).contains(error.status.code) {
                    return WireResponse.error(AuthError(.invalidArgument, error.body ?? error.status.reasonPhrase))
                }
                logger.error("internal error", metadata: ["error": "\(error)", "path": "\(path)"])
                return WireResponse.error(AuthError(.internalError))
            }
        default:
            logger.error("internal error", metadata: ["error": "\(error)", "path": "\(path)"])
            return WireResponse.error(AuthError(.internalError))
        }
    }
}
