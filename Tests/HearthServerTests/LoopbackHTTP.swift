import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// HTTP to a `hearth` process on 127.0.0.1, for the tests that start the real binary: through AsyncHTTPClient, whose
/// deadlines are NIO timers, rather than URLSession. FoundationNetworking's URLSession on Linux rarely stops
/// delivering answers it has received: a test process then sat idle for good, the servers' answers unread in its
/// sockets and its 60 s timeouts never firing, until scripts/test's 25-minute net killed the run.
enum LoopbackHTTP {
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
    }

    static func send(
        _ method: HTTPMethod, port: Int, path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: TimeInterval = 60
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView))
    }
}
