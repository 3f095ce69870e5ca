import HTTPTypes
import Hummingbird

/// CORS as Google's front end does it for Identity Toolkit: reflect the caller's origin and requested
/// headers (the APIs are cookieless, so this is safe), and answer preflights with 204. It sits outside
/// `ErrorEnvelopeMiddleware`, so every answer carries the origin, errors and 5xx included: a browser hides an
/// answer without it, and the JS SDK would report `auth/network-request-failed` for a wrong password.
///
/// The pages under `/__/` (action handler, auth handler) are documents a browser navigates to, with a CSRF
/// cookie and a token in the page: no origin is ever allowed to read or preflight them.
struct FirebaseCORSMiddleware: RouterMiddleware {
    typealias Context = HearthRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let isPage = request.uri.path.hasPrefix("/__/")
        // Every OPTIONS is a preflight, on any path, answered 204 as Google's front end and the emulator do.
        if request.method == .options {
            guard let origin = request.headers[.origin], !isPage else { return Response(status: .noContent) }
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] =
                request.headers[.accessControlRequestHeaders]
                ?? "Content-Type, Authorization, X-Client-Version, X-Firebase-Locale, X-Firebase-GMPID, X-Firebase-Client, X-Firebase-AppCheck, X-Goog-Api-Key"
            headers[.accessControlMaxAge] = "3600"
            headers[.vary] = "Origin"
            if request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] != nil {
                headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
            }
            return Response(status: .noContent, headers: headers)
        }
        guard let origin = request.headers[.origin], !isPage else { return try await next(request, context) }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        return response
    }
}
