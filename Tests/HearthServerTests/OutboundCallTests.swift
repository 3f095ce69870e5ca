import Foundation
import HearthCore
import Hummingbird
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the server may call (`OutboundURLPolicy`, `OutboundHTTP`): refused when configured, with nothing stored;
/// refused again at call time; redirects never followed; a function's failure shown without its URL.
@Suite("Outbound calls")
struct OutboundCallTests {
    static let refusedURLs: [String] = [
        "http://169.254.169.254/computeMetadata/v1/", "http://[fe80::1]/fn", "http://metadata.google.internal/fn",
        "http://2852039166/fn", "http+unix://%2Ftmp%2Fhearth.sock/fn", "file:///etc/passwd",
        "https://localhost\\@169.254.169.254/fn",
    ]

    @Test func blockingFunctionsAndOIDCIssuersTheServerMayNotCallAreRefusedAndNotStored() async throws {
        let h = try await Harness()
        try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
            let config = "/v2/projects/\(h.projectID)/config"
            for url in Self.refusedURLs {
                let reply = try await c.admin(
                    config, ["blockingFunctions": ["triggers": ["beforeCreate": ["functionUri": .string(url)]]]],
                    token: token, method: .patch)
                #expect(reply.status == 400 && reply.errorCode == "INVALID_BLOCKING_FUNCTION", "\(url)")
                let issuer = try await c.admin(
                    "/v2/projects/\(h.projectID)/oauthIdpConfigs?oauthIdpConfigId=oidc.corp",
                    ["clientId": "hearth-web", "issuer": .string(url), "enabled": true], token: token)
                #expect(issuer.status == 400 && issuer.errorCode == "INVALID_CONFIG", "\(url)")
            }
            let project = try #require(h.engine.projects.config(h.projectID))
            #expect(project.blockingFunctions.triggers.isEmpty)
            #expect(project.federation.oidc["oidc.corp"] == nil)
            #expect(try await c.signUp(email: "ada@example.com", password: "secret-1").status == 200)
        }
    }

    /// The issue's finding: an OIDC provider whose issuer named a Unix socket made a sign-in connect to it. A
    /// provider from the config file (which `hearth serve` checks at start, the harness does not) is refused at
    /// call time too: the socket, listening, is never connected to.
    @Test func anOIDCSignInNeverConnectsToAUnixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(UUID().uuidString).sock")
            .path
        let listener = try UnixListener(path: path)
        defer { listener.close() }
        let encoded = path.replacingOccurrences(of: "/", with: "%2F")
        let h = try await Harness {
            $0.federation.oidc["oidc.corp"] = OIDCSettings(issuer: "http+unix://\(encoded)", clientIds: ["hearth-web"])
        }
        try await h.run { (c: Client) async throws in
            let reply = try await FederatedSignInTests.signInWithIdp(c, provider: "oidc.corp", idToken: "a.b.c")
            #expect(reply.status == 400 && reply.errorCode == "INVALID_IDP_RESPONSE")
        }
        #expect(!listener.wasConnected(), "the server connected to the Unix socket")
        var problems = FederationSettings()
        problems.oidc["oidc.corp"] = OIDCSettings(issuer: "http+unix://\(encoded)", clientIds: ["hearth-web"])
        #expect(problems.problems.contains { $0.hasPrefix("oidc.corp.issuer") })
    }

    /// A function that answers 307 to another host: the signed event must not be re-posted there.
    @Test func aBlockingFunctionsRedirectIsNotFollowed() async throws {
        let h = try await Harness()
        let received = Mutex(0)
        let elsewhere = Router()
        elsewhere.post("/fn") { _, _ -> Response in
            received.withLock { $0 += 1 }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        try await serveOnLoopback(elsewhere) { other in
            let redirecting = Router()
            redirecting.post("/fn") { _, _ -> Response in
                Response(status: .temporaryRedirect, headers: [.location: other + "/fn"])
            }
            try await serveOnLoopback(redirecting) { base in
                try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
                    _ = try await c.admin(
                        "/v2/projects/\(h.projectID)/config",
                        ["blockingFunctions": ["triggers": ["beforeCreate": ["functionUri": .string(base + "/fn")]]]],
                        token: token, method: .patch)
                    let reply = try await c.signUp(email: "ada@example.com", password: "secret-1")
                    #expect(reply.status == 400 && reply.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
                    #expect(try await h.store.user(projectID: h.projectID, email: "ada@example.com") == nil)
                }
            }
        }
        #expect(received.withLock { $0 } == 0, "the event was re-posted to the redirect's target")
    }

    /// The client sees Firebase's message: the function's own HttpsError, or a generic one; never the function's
    /// URL (its query may hold a key) nor what a crashing function printed.
    @Test func aBlockingFunctionsFailureShowsNeitherItsURLNorItsSecret() async throws {
        let h = try await Harness()
        let crashing = Router()
        crashing.post("/crash") { _, _ -> Response in
            Response(
                status: .internalServerError,
                body: .init(byteBuffer: ByteBuffer(string: "stack trace: db password hunter2")))
        }
        crashing.post("/refuse") { _, _ -> Response in
            Response(
                status: .forbidden, headers: [.contentType: "application/json"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: #"{"error":{"status":"PERMISSION_DENIED","message":"Not on the list","other":"x"}}"#)))
        }
        try await serveOnLoopback(crashing) { base in
            try await AdminUserTests.withAdmin(h) { (c: Client, token: String) async throws in
                for (function, shown) in [
                    (base + "/crash?key=s3cret-key", nil), ("http://127.0.0.1:1/fn?key=s3cret-key", nil),
                    (base + "/refuse?key=s3cret-key", "Not on the list"),
                ] as [(String, String?)] {
                    _ = try await c.admin(
                        "/v2/projects/\(h.projectID)/config",
                        ["blockingFunctions": ["triggers": ["beforeCreate": ["functionUri": .string(function)]]]],
                        token: token, method: .patch)
                    let reply = try await c.signUp(email: "ada@example.com", password: "secret-1")
                    let message = reply.json["error"]?["message"]?.stringValue ?? ""
                    #expect(reply.status == 400 && reply.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(function)")
                    for secret in ["s3cret", "127.0.0.1", "hunter2", "/crash", "/refuse"] {
                        #expect(!message.contains(secret), "\(function) shows \(secret): \(message)")
                    }
                    if let shown {
                        #expect(message.contains("HTTP Cloud Function returned an error: "), "\(message)")
                        #expect(message.contains(shown) && message.contains("PERMISSION_DENIED"), "\(message)")
                    }
                }
            }
        }
    }
}

/// A Unix-domain socket that listens and never accepts: a connection attempt stays in its backlog, where a
/// non-blocking `accept` finds it.
final class UnixListener: Sendable {
    let descriptor: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 8) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    func wasConnected() -> Bool {
        let connection = accept(descriptor, nil, nil)
        if connection >= 0 { Glibc.close(connection) }
        return connection >= 0
    }

    func close() {
        Glibc.close(descriptor)
        unlink(path)
    }
}
