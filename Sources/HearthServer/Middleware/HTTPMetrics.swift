import Dispatch
import HTTPTypes
import Metrics
import Synchronization

/// Requests by route, method and status with their latency (`http.server.request.duration`, a histogram in
/// Prometheus), and requests in flight by method (`http.server.active_requests`): the series Hummingbird's
/// `MetricsMiddleware` records, under the same names, made once per route and status and then reused.
final class HTTPMetrics: Sendable {
    private struct Key: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private let timers = Mutex<[Key: Timer]>([:])
    private let active = Mutex<[HTTPRequest.Method: Meter]>([:])

    /// The in-flight meter of `method`, incremented; decrement it when the answer is made.
    func begin(_ method: HTTPRequest.Method) -> Meter {
        let meter = active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = meter
            return meter
        }
        meter.increment()
        return meter
    }

    func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since start: UInt64) {
        let key = Key(route: route, method: method, status: status.code)
        let timer = timers.withLock { timers in
            if let timer = timers[key] { return timer }
            let timer = Timer(
                label: "http.server.request.duration",
                dimensions: [
                    ("http.route", route), ("http.request.method", method.rawValue),
                    ("http.response.status_code", String(status.code)),
                ],
                preferredDisplayUnit: .seconds)
            timers[key] = timer
            return timer
        }
        timer.recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
    }
}
