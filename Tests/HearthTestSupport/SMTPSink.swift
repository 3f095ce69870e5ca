import Foundation
import HearthCore
import Synchronization
import Testing

/// A real SMTP server (aiosmtpd, `tests/interop/smtp_sink.py`) on 127.0.0.1, started for one test and stopped
/// after it, with a throwaway CA when TLS is on. Reads back what it received as Python's e-mail parser sees it.
// Its state is set up once in init and only read afterwards.
public final class SMTPSink: @unchecked Sendable {
    /// `unconfirmed`: plain, keeps each message and never answers its final dot; `refusing`: answers it with 554.
    public enum Mode: String { case starttls, tls, plain, silent, unconfirmed, refusing }

    public struct Received: Sendable {
        public let json: JSONValue
        public var header: [String: String] {
            (json["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        }
        public var text: String { json["text"]?.stringValue ?? "" }
        public var html: String { json["html"]?.stringValue ?? "" }
        public var recipients: [String] { json["rcptTos"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        /// The action link in the plain-text part.
        public var link: String? {
            text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http") }.map(String.init)
        }
    }

    public let directory: URL
    public let port: Int
    public let process: ChildProcess
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("tests/interop/smtp_sink.py").path
    }

    /// The test environment's Python (scripts/test installs aiosmtpd there), else the one on PATH.
    static var python: String {
        let root = URL(fileURLWithPath: script).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let venv = root.appendingPathComponent(".build/test-venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }

    /// Starts the server and waits for it to listen. The wait polls with `Task.sleep`: a blocking read would hold
    /// one of the few cooperative threads the other tests need.
    public init(_ mode: Mode, user: String? = nil, password: String? = nil, loginOnly: Bool = false) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [Self.script, "--mode", mode.rawValue, "--out", directory.path]
        if mode == .starttls || mode == .tls { arguments += ["--tls-dir", directory.path] }
        if let user, let password { arguments += ["--user", user, "--password", password] }
        if loginOnly { arguments.append("--exclude-plain") }
        // It exits when its standard input closes (`stop`).
        process = try ChildProcess(Self.python, arguments, keepInput: true)
        // The first line is "READY <port>"; anything else means aiosmtpd is missing or failed. Wide: at the start of
        // the whole suite on two cores, Python's start (aiosmtpd, cryptography, a throwaway CA) once took over 30 s.
        let port = try await process.waitForOutput(timeout: .seconds(120)) { text -> Int?? in
            guard let line = text.split(separator: "\n").first, text.contains("\n") else { return nil }
            let words = line.split(separator: " ")
            return .some(words.count == 2 && words[0] == "READY" ? Int(words[1]) : nil)
        }
        guard let port = port ?? nil else {
            process.signal(SIGTERM)
            throw SinkError(
                "smtp_sink.py did not start within 120 s (is aiosmtpd installed? python3 -m pip install -r tests/interop/requirements.txt): \(process.output)"
            )
        }
        self.port = port
    }

    struct SinkError: Error, CustomStringConvertible {
        public let description: String
        public init(_ d: String) { description = d }
    }

    /// Messages received so far, in order.
    public func received() throws -> [Received] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        return try files.map { name in
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return Received(json: try JSONValue(parsing: String(decoding: data, as: UTF8.self)))
        }
    }

    /// Ends the server (it exits when its stdin closes) without waiting for it.
    public func stop() {
        process.closeInput()
        try? FileManager.default.removeItem(at: directory)
    }
}
