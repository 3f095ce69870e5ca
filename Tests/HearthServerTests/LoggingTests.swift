import Foundation
import HearthCore
@testable import HearthServer
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Logs: JSON lines and request ids", .serialized)
struct LoggingTests {
    @Test func aJSONLineEscapesEverythingAndKeepsTheFixedFieldsItsOwn() throws {
        let line = JSONLogHandler.line(
            time: Date(timeIntervalSince1970: 1_795_000_000.25), level: .warning, label: "hearth",
            message: "quote \" backslash \\ newline \n tab \t bell \u{7} 한국어", source: "HearthEngine",
            metadata: [
                "request": "r-1", "message": "forged", "nested": .dictionary(["b": "2", "a": .array(["x", "y"])]),
            ])
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1, "one line, whatever the message")
        let object = try #require(try JSONValue.parse(Array(line.utf8)).objectValue)
        #expect(object["time"] == "2026-11-18T11:06:40.250Z")
        #expect(object["level"] == "warning" && object["label"] == "hearth" && object["source"] == "HearthEngine")
        #expect(object["message"] == "quote \" backslash \\ newline \n tab \t bell \u{7} 한국어")
        #expect(object["meta.message"] == "forged", "metadata cannot replace the message")
        #expect(object["request"] == "r-1")
        #expect(object["nested"] == ["a": ["x", "y"], "b": "2"])
    }

    @Test func theServerLogsJSONWithTheRequestIdOnEveryLineOfARequest() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServerProcess(
            arguments: ["--data-dir", dir.path, "--admin-port", "0", "--log-format", "json", "--log-level", "info"])
        let port = try await server.waitUntilListening()

        func signUp(requestID: String?) async throws -> String? {
            let reply = try await LoopbackHTTP.send(
                .POST, port: port, path: "/v1/accounts:signUp?key=any",
                headers: requestID.map { [("X-Request-Id", $0)] } ?? [], body: Array("{}".utf8))
            #expect(reply.status == 200)
            return reply.headers.first(name: "X-Request-Id")
        }
        #expect(try await signUp(requestID: "proxy-7f3a.1") == "proxy-7f3a.1", "a plain id from a proxy is kept")
        let forged = try #require(try await signUp(requestID: "evil\" id"))
        #expect(forged.count == 16 && forged.allSatisfy(\.isHexDigit), "an id that is not plain is replaced")
        let generated = try #require(try await signUp(requestID: nil))
        #expect(generated != forged)

        server.signal(SIGTERM)
        try await server.waitForExit()
        let lines = try await server.readRemainingLog().split(separator: "\n")
        let objects = try lines.map { line in
            try #require(try JSONValue.parse(Array(line.utf8)).objectValue, "not a JSON object: \(line)")
        }
        #expect(objects.allSatisfy { $0["time"] != nil && $0["level"] != nil && $0["message"] != nil })
        let created = objects.filter { $0["message"] == "account created" }
        #expect(created.map { $0["request"]?.stringValue } == ["proxy-7f3a.1", forged, generated])
        #expect(objects.contains { $0["message"] == "hearth stopped" && $0["request"] == nil })
    }
}
