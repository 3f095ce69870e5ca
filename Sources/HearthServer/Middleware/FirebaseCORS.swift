import HTTPTypes
import Hummingbird

/// CORS as Google's front end does it for Identity Toolkit: reflect the caller's origin and requested
/// headers (the APIs are cookieless, so this is safe), and answer preflights with 204. `HTTPFront` applies it
/// outside the error envelope, so every answer carries the origin, errors and 5xx included: a browser hides an
/// answer without it, and the JS SDK would report `auth/network-request-failed` for a wrong password.
///
/// The pages under `/__/` (action handler, auth handler) are documents a browser navigates to, with a CSRF
/// cookie and a token in the page: no origin is ever allowed to read or preflight them.
enum FirebaseCORS {
    static let privateNetworkRequest = HTTPField.Name("Access-Control-Request-Private-Network")!
    static let privateNetworkAllow = HTTPField.Name("Access-Control-Allow-Private-Network")!

    static func isPage(_ request: Request) -> Bool { request.uri.path.hasPrefix("/__/") }

    /// The answer to a preflight. Every OPTIONS is one, on any path, answered 204 as Google's front end and the
    /// emulator do.
    static func preflight(_ request: Request) -> Response {
        guard let origin = request.headers.value(.origin), !isPage(request) else { return Response(status: .noContent) }
        var headers = HTTPFields()
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowMethods] = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
        headers[.accessControlAllowHeaders] =
            request.headers.value(.accessControlRequestHeaders)
            ?? "Content-Type, Authorization, X-Client-Version, X-Firebase-Locale, X-Firebase-GMPID, X-Firebase-Client, X-Firebase-AppCheck, X-Goog-Api-Key"
        headers[.accessControlMaxAge] = "3600"
        headers[.vary] = "Origin"
        if request.headers.contains(privateNetworkRequest) { headers[privateNetworkAllow] = "true" }
        return Response(status: .noContent, headers: headers)
    }

    /// Lets the calling origin read `response`, unless the request is for a page.
    static func allowOrigin(of request: Request, on response: inout Response) {
        guard let origin = request.headers.value(.origin), !isPage(request) else { return }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
    }
}
