import Foundation
import HearthAuth

/// A real `hearth serve` process on 127.0.0.1 with its own data directory, for one test.
///
/// The binary is `HEARTH_BINARY`, or the `hearth` built beside the test bundle.
final class TestServer {
    static let apiKey = "sdk-key"
    static let projectID = "sdk-test"
    static let testPhone = "+16505553434"
    static let testCode = "654321"
    static let otherTestPhone = "+16505550101"
    static let otherTestCode = "111111"
    /// The number and code seed 001's integration test uses.
    static let seedTestPhone = "+16505554567"
    static let seedTestCode = "123456"

    let process = Process()
    let directory: URL
    private(set) var port = 0

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["HEARTH_BINARY"] { return URL(fileURLWithPath: path) }
        let bundle = Bundle.main.bundleURL
        let beside = bundle.appendingPathComponent("hearth")
        return FileManager.default.isExecutableFile(atPath: beside.path)
            ? beside : bundle.deletingLastPathComponent().appendingPathComponent("hearth")
    }

    /// Starts the server with the test project; `tokens` overrides its token settings.
    init(tokens: [String: Any] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let project: [String: Any] = [
            "projectId": Self.projectID, "apiKeys": [Self.apiKey], "tokens": tokens,
            "rateLimits": ["signUpsPerIPPerHour": 0, "failedPasswordsPerIP": 0, "failedPasswordsPerAccount": 0],
            "phone": [
                "appVerification": "disabled",
                "testPhoneNumbers": [
                    Self.testPhone: Self.testCode, Self.otherTestPhone: Self.otherTestCode,
                    Self.seedTestPhone: Self.seedTestCode,
                ],
            ],
        ]
        let config = directory.appendingPathComponent("hearth.json")
        try JSONSerialization.data(withJSONObject: ["projects": [project]]).write(to: config)

        let output = Pipe()
        process.executableURL = Self.binary
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", directory.appendingPathComponent("data").path,
            "--config", config.path, "--project", Self.projectID,
        ]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        port = try Self.waitForPort(output.fileHandleForReading, process: process)
        // Keep draining the log so the server never blocks on a full pipe.
        output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
    }

    private static func waitForPort(_ handle: FileHandle, process: Process) throws -> Int {
        var log = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning || !log.isEmpty {
            let chunk = handle.availableData
            if chunk.isEmpty {
                if !process.isRunning { break }
                Thread.sleep(forTimeInterval: 0.02)
                continue
            }
            log += String(decoding: chunk, as: UTF8.self)
            if let range = log.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression),
                let port = Int(log[range].split(separator: ":").last!)
            {
                return port
            }
        }
        throw StartFailure(description: "hearth did not start (\(binary.path)): \(log)")
    }

    struct StartFailure: Error, CustomStringConvertible { let description: String }

    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    var options: HearthOptions {
        HearthOptions(apiKey: Self.apiKey, projectID: Self.projectID, endpoint: endpoint)
    }

    /// A fresh app and its `Auth`, keeping users in `store` (a new directory unless given).
    func makeAuth(name: String = "app-\(UUID().uuidString)", store: (any AuthUserStore)? = nil) -> Auth {
        let store = store ?? FileUserStore(directory: directory.appendingPathComponent("users-\(UUID().uuidString)"))
        return Auth.auth(app: HearthApp.configure(name: name, options: options, userStore: store))
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

/// A port nothing listens on: bound, then closed.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

func uniqueEmail() -> String { "user-\(UUID().uuidString.prefix(8).lowercased())@example.com" }

/// The `AuthErrorCode` of a thrown error, checking it is in FirebaseAuth's domain.
func authCode(_ error: any Error) -> AuthErrorCode? {
    let e = error as NSError
    return e.domain == AuthErrorDomain ? AuthErrorCode(rawValue: e.code) : nil
}
