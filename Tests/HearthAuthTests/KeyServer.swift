import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP server on 127.0.0.1 that answers GETs with fixed JSON bodies: stands in for Apple's key
/// endpoint, so the real `hearth` binary verifies identity tokens these tests sign, with real signatures.
/// POSTs go to `onPost` (path, body) and are answered with the body under `"POST <path>"`, or 200 `{}`: APNs, for
/// the silent push; an OAuth token endpoint.
/// One connection at a time, `Connection: close`; enough for a key set fetched once per test.
final class KeyServer: @unchecked Sendable {
    let port: Int
    private let socketFD: Int32
    private let bodies: [String: Data]
    private let onPost: (@Sendable (String, Data) -> Void)?
    /// Set once by `stop()`: the descriptor must be closed exactly once (a second close would close whatever the
    /// process opened under the same number since — a NIO socket — and crash it), and never used after.
    private let stopped = Mutex(false)

    init(bodies: [String: Data], onPost: (@Sendable (String, Data) -> Void)? = nil) throws {
        self.bodies = bodies
        self.onPost = onPost
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw TestServer.StartFailure(description: "key server could not listen")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socketFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    var base: String { "http://127.0.0.1:\(port)" }

    private func serve() {
        while !stopped.withLock({ $0 }) {
            let client = accept(socketFD, nil, nil)
            if client < 0 { return }  // shut down by stop()
            let (request, posted) = readRequest(client)
            let path = request.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            var body = bodies[path]
            if request.hasPrefix("POST ") {
                onPost?(path, posted)
                if let answer = bodies["POST " + path] {
                    body = answer
                } else if onPost != nil {
                    body = Data("{}".utf8)
                }
            }
            let head =
                "HTTP/1.1 \(body == nil ? "404 Not Found" : "200 OK")\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body?.count ?? 0)\r\nConnection: close\r\n\r\n"
            let response = Data(head.utf8) + (body ?? Data())
            _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }

    /// The request head, and the body its Content-Length announces.
    private func readRequest(_ client: Int32) -> (String, Data) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            guard let end = received.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - end.upperBound >= length {
                return (head, Data(received[end.upperBound..<(end.upperBound + length)]))
            }
        }
        return (String(decoding: received, as: UTF8.self), Data())
    }

    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    deinit { stop() }
}
