import HTTPTypes
import HearthCore
import Hummingbird

/// Rules every request and answer follow, whatever the route: one `Host` (a request without one, or with two,
/// is malformed HTTP/1.1 and a way to confuse proxies about which site it is for), and `nosniff` on every answer
/// so no browser renders a JSON error as HTML. Outermost, so it also covers answers made by other middleware.
struct HTTPHygieneMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    /// The HTTP/1 codec moves the first `Host` into `:authority`; any further one stays among the fields.
    static let host = HTTPField.Name("Host")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        if request.head.authority?.isEmpty ?? true {
            response = WireResponse.error(AuthError(.invalidArgument, "The request has no Host header."))
        } else if request.headers[Self.host] != nil {
            response = WireResponse.error(AuthError(.invalidArgument, "The request has more than one Host header."))
        } else {
            response = try await next(request, context)
        }
        response.headers[Self.contentTypeOptions] = "nosniff"
        return response
    }
}
