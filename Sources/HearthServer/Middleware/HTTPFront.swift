import Dispatch
import HTTPTypes
import HearthCore
import Hummingbird
import Logging

/// Everything a request passes before its route and an answer after it, outermost first: its id (the task-local
/// `RequestID` every log line carries, answered in `X-Request-Id`), hygiene (`HTTPHygiene`: one Host; `nosniff` on
/// every answer), the client's address behind trusted proxies (`ClientAddress`), a debug log line, metrics
/// (`HTTPMetrics`), CORS (`FirebaseCORS`, outside the envelope so errors carry it too) and the error envelope
/// (`ErrorEnvelope`).
///
/// One middleware rather than one per concern: each Hummingbird middleware is another async frame that copies the
/// request and its context, and seven of them cost as much CPU per request as all of Hummingbird's own work
/// (measured: BENCHMARKS.md, "Where the time goes").
struct HTTPFront: RouterMiddleware {
    typealias Context = HearthRequestContext
    let trustedProxies: [IPNetwork]
    let metrics = HTTPMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let id = RequestID.accept(request.headers.value(RequestID.header))
        var response = await RequestID.$current.withValue(id) { await serve(request, context, next) }
        response.headers.append(HTTPField(name: RequestID.header, value: id))
        // Pages set it themselves; a field made once is appended without validating its value again.
        if !response.headers.contains(HTTPHygiene.contentTypeOptions) { response.headers.append(HTTPHygiene.nosniff) }
        return response
    }

    private func serve(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async
        -> Response
    {
        if let problem = HTTPHygiene.problem(request) { return WireResponse.error(problem) }
        var context = context
        if !trustedProxies.isEmpty {
            context.clientIP = ClientAddress.client(peer: context.clientIP, headers: request.headers, trusted: trustedProxies)
        }
        context.logger.debug(
            "Request", metadata: ["hb.request.path": .stringConvertible(request.uri), "hb.request.method": .string(request.method.rawValue)])
        let start = DispatchTime.now().uptimeNanoseconds
        let inFlight = metrics.begin(request.method)
        defer { inFlight.decrement() }
        var response: Response
        if request.method == .options {
            response = FirebaseCORS.preflight(request)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = ErrorEnvelope.response(for: error, path: request.uri.path, logger: context.logger)
            }
            FirebaseCORS.allowOrigin(of: request, on: &response)
        }
        metrics.record(
            route: context.endpointPath ?? "Unknown", method: request.method, status: response.status, since: start)
        return response
    }
}
