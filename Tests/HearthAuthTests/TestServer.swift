import Foundation
import HearthAuth
import HearthTestSupport
import Synchronization

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

    let process: ChildProcess
    let directory: URL
    private(set) var port = 0

    static var binary: URL { HearthBinary.url }

    /// Starts the server with the test project; `tokens` overrides its token settings, `federation` configures
    /// identity providers.
    /// `emulator` starts it with `--emulator` (its `/emulator/v1` routes list codes and links).
    /// `mfa` is the project's multi-factor config (Identity Platform's `mfa` shape); `phone` adds phone settings;
    /// `apns` (the server's `apns` section) with `appVerification` sets up phone app verification; `recaptcha` is
    /// the server's `recaptcha` section; `passkeyConfig` (`rpId`, `expectedOrigins`) turns passkeys on.
    init(
        tokens: [String: Any] = [:], federation: [String: Any] = [:], emulator: Bool = false,
        mfa: [String: Any] = [:], phone: [String: Any] = [:], appVerification: String = "disabled",
        apns: [String: Any]? = nil, recaptcha: [String: Any]? = nil, passkeyConfig: [String: Any]? = nil
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var project: [String: Any] = [
            "projectId": Self.projectID, "apiKeys": [Self.apiKey], "tokens": tokens, "federation": federation,
            "rateLimits": ["signUpsPerIPPerHour": 0, "failedPasswordsPerIP": 0, "failedPasswordsPerAccount": 0],
            "phone": [
                "appVerification": appVerification,
                "testPhoneNumbers": [
                    Self.testPhone: Self.testCode, Self.otherTestPhone: Self.otherTestCode,
                    Self.seedTestPhone: Self.seedTestCode,
                ],
            ],
        ]
        if !mfa.isEmpty { project["mfa"] = mfa }
        if let passkeyConfig { project["passkeyConfig"] = passkeyConfig }
        if var phoneSettings = project["phone"] as? [String: Any] {
            phoneSettings.merge(phone) { $1 }
            project["phone"] = phoneSettings
        }
        let config = directory.appendingPathComponent("hearth.json")
        var server: [String: Any] = ["projects": [project]]
        if let apns { server["apns"] = apns }
        if let recaptcha { server["recaptcha"] = recaptcha }
        try JSONSerialization.data(withJSONObject: server).write(to: config)

        let process = try ChildProcess(
            Self.binary.path,
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir",
                directory.appendingPathComponent("data").path,
                "--config", config.path, "--project", Self.projectID,
            ] + (emulator ? ["--emulator"] : []))
        self.process = process
        let port = try await process.waitForOutput { text -> Int? in
            text.range(of: #"listening on http://127\.0\.0\.1:\d+"#, options: .regularExpression)
                .flatMap { Int(text[$0].split(separator: ":").last!) }
        }
        guard let port else {
            throw StartFailure(description: "hearth did not start (\(Self.binary.path)): \(process.output)")
        }
        self.port = port
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

    /// Runs a `hearth` subcommand on this server's data, as an operator would beside it; returns its output.
    func cli(_ arguments: [String]) async throws -> String {
        let (status, text) = try await ChildProcess.run(
            Self.binary.path,
            arguments + ["--data-dir", directory.appendingPathComponent("data").path, "--project", Self.projectID])
        guard status == 0 else { throw StartFailure(description: "hearth \(arguments): \(text)") }
        return text
    }

    func stop() {
        if process.isRunning {
            process.signal(SIGTERM)
            if (try? process.waitForExitBlocking(timeout: .seconds(30))) == nil { process.signal(SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

func uniqueEmail() -> String { "user-\(UUID().uuidString.prefix(8).lowercased())@example.com" }

/// The `AuthErrorCode` of a thrown error, checking it is in FirebaseAuth's domain.
func authCode(_ error: any Error) -> AuthErrorCode? {
    let e = error as NSError
    return e.domain == AuthErrorDomain ? AuthErrorCode(rawValue: e.code) : nil
}
