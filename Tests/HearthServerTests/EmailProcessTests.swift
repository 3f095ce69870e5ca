import Foundation
import HearthCore
import Testing

/// `hearth serve` in production mode, configured as an operator would: the `email` section, the SMTP password
/// from the environment, `publicURL`; and the same server with no sender at all.
@Suite("E-mail in the hearth process", .serialized)
struct EmailProcessTests {
    func start(_ config: JSONValue, environment: [String: String] = [:]) async throws -> (ServerProcess, Int, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(config.jsonText.utf8).write(to: dir.appendingPathComponent("hearth.json"))
        let server = try ServerProcess(
            arguments: [
                "--data-dir", dir.path, "--config", dir.appendingPathComponent("hearth.json").path, "--project",
                "mail-test",
            ], environment: environment)
        return (server, try await server.waitUntilListening(), dir)
    }

    @Test func aConfiguredServerMailsLinksToItsPublicURLAndNeverLogsThem() async throws {
        let sink = try await SMTPSink(.starttls, user: "relay", password: "from-the-environment")
        defer { sink.stop() }
        let config: JSONValue = [
            "publicURL": "https://auth.example.com",
            "email": [
                "provider": "smtp",
                "smtp": [
                    "host": "localhost", "port": .number(Double(sink.port)), "security": "starttls",
                    "username": "relay", "from": "noreply@hearth.test", "fromName": "Hearth",
                    "caFile": .string(sink.caFile),
                ],
            ],
            "projects": [["projectId": "mail-test"]],
        ]
        let (server, port, dir) = try await start(config, environment: ["HEARTH_SMTP_PASSWORD": "from-the-environment"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let (signUp, _) = try await postJSON(
            port: port, path: "/v1/accounts:signUp", body: ["email": "ada@example.com", "password": "secret1"])
        #expect(signUp == 200)
        let (status, _) = try await postJSON(
            port: port, path: "/v1/accounts:sendOobCode", body: ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
        #expect(status == 200)
        let mail = try #require(try sink.received().first)
        let link = try #require(mail.link)
        #expect(link.hasPrefix("https://auth.example.com/__/auth/action?mode=resetPassword&oobCode="))
        let code = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "oobCode" }?.value)
        let (reset, _) = try await postJSON(
            port: port, path: "/v1/accounts:resetPassword", body: ["oobCode": .string(code), "newPassword": "newpass1"])
        #expect(reset == 200)

        server.signal(SIGTERM)
        let log = try await server.readRemainingLog()
        #expect(log.contains("e-mail: smtp"))
        #expect(!log.contains(code), "the code is never logged")
        #expect(!log.contains("from-the-environment"))
    }

    @Test func withoutASenderTheServerSaysSoAndRefuses() async throws {
        let (server, port, dir) = try await start(["projects": [["projectId": "mail-test"]]])
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try await postJSON(
            port: port, path: "/v1/accounts:signUp", body: ["email": "ada@example.com", "password": "secret1"])
        let (status, body) = try await postJSON(
            port: port, path: "/v1/accounts:sendOobCode", body: ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
        #expect(status == 400)
        #expect(body["error"]?["message"]?.stringValue?.hasPrefix("OPERATION_NOT_ALLOWED") == true)
        server.signal(SIGTERM)
        let log = try await server.readRemainingLog()
        #expect(log.contains("e-mail: no sender configured"))
        #expect(!log.contains("oobCode="))
    }
}
