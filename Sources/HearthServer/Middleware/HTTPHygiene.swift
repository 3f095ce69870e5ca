import HTTPTypes
import HearthCore
import Hummingbird

/// Rules every request and answer follow, whatever the route: one `Host` (a request without one, or with two,
/// is malformed HTTP/1.1 and a way to confuse proxies about which site it is for), and `nosniff` on every answer
/// so no browser renders a JSON error as HTML.
enum HTTPHygiene {
    /// The HTTP/1 codec moves the first `Host` into `:authority`; any further one stays among the fields.
    static let host = HTTPField.Name("Host")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let nosniff = HTTPField(name: contentTypeOptions, value: "nosniff")

    /// Why `request` is refused before any route sees it, if it is.
    static func problem(_ request: Request) -> AuthError? {
        if request.head.authority?.isEmpty ?? true {
            return AuthError(.invalidArgument, "The request has no Host header.")
        }
        if request.headers.contains(host) {
            return AuthError(.invalidArgument, "The request has more than one Host header.")
        }
        return nil
    }
}
