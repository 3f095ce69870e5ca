import Foundation
import HearthTestSupport
import Testing

/// openssl makes the certificates, curl (built with HTTP/2) speaks to the server.
let tlsToolsAvailable =
    (try? ChildProcess.runBlocking("openssl", ["version"]).status) == 0
    && (try? ChildProcess.runBlocking("curl", ["--version"]).output.contains("HTTP2")) == true

/// `hearth serve --tls-cert --tls-key` with certificates made by the openssl CLI, spoken to by curl.
@Suite(
    "TLS in the hearth process", .serialized,
    .enabled(if: tlsToolsAvailable, "needs the openssl and curl (with HTTP/2) command-line tools"))
struct TLSProcessTests {
    /// A self-signed certificate for 127.0.0.1 named `name`, written to `certificate` and `key`.
    func makeCertificate(_ name: String, certificate: URL, key: URL) async throws {
        let (status, output) = try await spawnAndWait(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", key.path, "-out", certificate.path,
            ])
        try #require(status == 0, "\(output)")
    }

    /// curl's exit status and `http_version http_code` for a sign-up over HTTPS, trusting only `trusting`.
    func signUp(port: Int, trusting: URL, http: String) async throws -> (status: Int32, output: String) {
        try await spawnAndWait(
            "curl",
            [
                "--silent", "--output", "/dev/null", "--write-out", "%{http_version} %{http_code}", http,
                "--cacert", trusting.path, "--max-time", "30", "--request", "POST",
                "--header", "Content-Type: application/json", "--data", "{}",
                "https://127.0.0.1:\(port)/v1/accounts:signUp?key=any",
            ])
    }

    @Test func servesHTTP2OverTLSAndSwapsTheCertificateOnSIGHUP() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let certificate = dir.appendingPathComponent("cert.pem")
        let key = dir.appendingPathComponent("key.pem")
        try await makeCertificate("hearth-first", certificate: certificate, key: key)
        let first = dir.appendingPathComponent("first.pem")
        try FileManager.default.copyItem(at: certificate, to: first)

        let server = try ServerProcess(arguments: [
            "--data-dir", dir.appendingPathComponent("data").path, "--admin-port", "0",
            "--tls-cert", certificate.path, "--tls-key", key.path,
        ])
        defer { server.signal(SIGKILL) }
        let port = try await server.waitUntilListening()

        // HTTP/2 by ALPN, HTTP/1.1 for clients that ask for it, both with the configured certificate.
        await #expect(try signUp(port: port, trusting: first, http: "--http2") == (0, "2 200"))
        await #expect(try signUp(port: port, trusting: first, http: "--http1.1") == (0, "1.1 200"))

        // A renewal: new files in place, then SIGHUP. New connections get the new certificate.
        let renewedCertificate = dir.appendingPathComponent("renewed-cert.pem")
        let renewedKey = dir.appendingPathComponent("renewed-key.pem")
        try await makeCertificate("hearth-second", certificate: renewedCertificate, key: renewedKey)
        try Data(contentsOf: renewedCertificate).write(to: certificate, options: .atomic)
        try Data(contentsOf: renewedKey).write(to: key, options: .atomic)
        server.signal(SIGHUP)
        try await server.waitForOutput(containing: "TLS certificate reloaded")
        let second = dir.appendingPathComponent("second.pem")
        try FileManager.default.copyItem(at: certificate, to: second)
        await #expect(try signUp(port: port, trusting: second, http: "--http2") == (0, "2 200"))
        await #expect(try signUp(port: port, trusting: first, http: "--http2").status == 60)  // peer certificate not trusted

        // A broken file on SIGHUP is refused and the certificate in use stays.
        try Data("not a certificate".utf8).write(to: certificate)
        server.signal(SIGHUP)
        try await server.waitForOutput(containing: "TLS certificate not reloaded")
        await #expect(try signUp(port: port, trusting: second, http: "--http2") == (0, "2 200"))
    }

    @Test func aKeyThatDoesNotFitTheCertificateStopsTheStart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (certificate, key) = (dir.appendingPathComponent("cert.pem"), dir.appendingPathComponent("key.pem"))
        let (other, otherKey) = (dir.appendingPathComponent("other.pem"), dir.appendingPathComponent("other-key.pem"))
        try await makeCertificate("hearth-one", certificate: certificate, key: key)
        try await makeCertificate("hearth-other", certificate: other, key: otherKey)

        let server = try ServerProcess(arguments: [
            "--data-dir", dir.appendingPathComponent("data").path, "--admin-port", "0",
            "--tls-cert", certificate.path, "--tls-key", otherKey.path,
        ])
        #expect(try await server.waitForExit() != 0)
        #expect(try await server.readRemainingLog().contains("does not fit the certificate"))
    }
}
