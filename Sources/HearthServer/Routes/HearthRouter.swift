import HTTPTypes
import Hummingbird

/// Hummingbird's router with a table in front of its trie: a request whose method and path are exactly those of a
/// route without parameters or wildcards (`POST /v1/accounts:lookup`, `POST /v1/token`, `GET /`) goes straight to
/// that route's responder, found by one dictionary lookup; anything else goes through the trie as before.
///
/// Resolving a path in the trie splits it and compares it component by component, `Character` by `Character`, trying
/// siblings in the order they were registered: ~11k instructions a lookup, more than Hearth's JSON parsing and token
/// check together (BENCHMARKS.md). The table answers exactly as the trie would: a route goes in only when no other
/// route's pattern matches its path (checked when the responder is built, against every route, pages' included),
/// its responder is the one the trie holds (the same middleware around it), and the route's path is recorded for
/// metrics and an `HTTPResponseError` turned into its response as `RouterResponder` does.
public final class HearthRouter: RouterMethods, HTTPResponderBuilder {
    public typealias Context = HearthRequestContext

    /// The trie router every route is registered on; routes of other modules (pages, the console) register here.
    public let router = Router(context: Context.self)
    private var literalRoutes: [HearthResponder.Route: HearthResponder.Endpoint] = [:]

    public init() {}

    @discardableResult public func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        if Self.isLiteral(path) {
            literalRoutes[HearthResponder.Route(method: method, path: path.description)] = HearthResponder.Endpoint(
                path: path.description,
                responder: router.middlewares.constructResponder(finalResponder: responder))
        }
        return self
    }

    @discardableResult public func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }

    /// Every route, as Hummingbird's router lists them.
    public var routes: [Router<Context>.RouteDescription] { router.routes }

    public func buildResponder() -> HearthResponder {
        let patterns = router.routes.map(\.path).filter { !Self.isLiteral($0) }
        let unambiguous = literalRoutes.filter { route, _ in
            let components = RouterPath(route.path).map(\.description)
            return !patterns.contains { Self.pattern($0, matches: components) }
        }
        return HearthResponder(literalRoutes: unambiguous, router: router.buildResponder())
    }

    /// Whether every component of `path` is plain text (no parameter, capture or wildcard).
    static func isLiteral(_ path: RouterPath) -> Bool {
        path.allSatisfy { $0 == .path(Substring($0.description)) }
    }

    /// Whether the trie could resolve a path of these components to `pattern` (a recursive wildcard: assume so).
    static func pattern(_ pattern: RouterPath, matches components: [String]) -> Bool {
        if pattern.contains(.recursiveWildcard) { return true }
        guard pattern.count == components.count else { return false }
        return zip(pattern, components).allSatisfy { element, component in element ~= component }
    }
}

/// `HearthRouter`'s responder: the table of routes without parameters, then the trie.
public struct HearthResponder: HTTPResponder {
    public typealias Context = HearthRequestContext

    struct Route: Hashable {
        let method: HTTPRequest.Method
        let path: String
    }

    struct Endpoint: Sendable {
        let path: String
        let responder: any HTTPResponder<Context>
    }

    let literalRoutes: [Route: Endpoint]
    let router: RouterResponder<Context>

    public func respond(to request: Request, context: Context) async throws -> Response {
        guard let endpoint = literalRoutes[Route(method: request.method, path: request.uri.path)] else {
            return try await router.respond(to: request, context: context)
        }
        context.coreContext.endpointPath.value = endpoint.path
        do {
            return try await endpoint.responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        }
    }
}
