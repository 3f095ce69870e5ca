import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import HearthCore
import HearthMessaging
import Hummingbird
import HummingbirdHTTP2
import NIOSSL
import Synchronization
import Testing
import X509

/// A real HTTP/2 server over TLS on 127.0.0.1 playing Apple's APNs provider API: a certificate made
/// for the test, ALPN `h2`, recording each push and answering as APNs does.
final class FakeAPNs: Sendable {
    struct Push: Sendable {
        let path: String
        let headers: HTTPFields
        let scheme: String?
        let body: JSONValue
    }

    let pushes = Mutex<[Push]>([])
    /// A refusal to answer with (status, APNs `reason`), or nil to accept.
    let refuse = Mutex<(HTTPResponse.Status, String)?>(nil)
    let certificatePEM: String
    private let tls: TLSConfiguration

    init() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("localhost")]) },
            issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
        tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)))
    }

    /// An HTTP client that trusts this server's certificate only (the chain is checked; the name is
    /// not, as the server is reached at 127.0.0.1). The caller shuts it down.
    private func client() throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)])
        tls.certificateVerification = .noHostnameVerification
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Runs the server while `body` runs, with its base URL and a client that trusts it.
    func serve(_ body: @Sendable (String, HTTPClient) async throws -> Void) async throws {
        let router = Router()
        // Production and sandbox hosts, told apart by a path prefix here.
        router.post("**") { request, context -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 16)
            let json = try JSONValue.parse(Array(bytes.readableBytesView))
            self.pushes.withLock {
                $0.append(
                    Push(path: request.uri.path, headers: request.headers, scheme: request.head.scheme, body: json))
            }
            if let (status, reason) = self.refuse.withLock({ $0 }) {
                return Response(
                    status: status, body: .init(byteBuffer: ByteBuffer(string: #"{"reason":"\#(reason)"}"#)))
            }
            return Response(status: .ok, headers: [HTTPField.Name("apns-id")!: UUID().uuidString])
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress!.port!) })
        try await runStoppingGracefully(app) {
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let client = try client()
            do {
                try await body("https://127.0.0.1:\(port)", client)
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }
}

@Suite("Phone app verification")
struct AppVerificationTests {
    static let deviceToken = String(repeating: "ab", count: 32)
    static let teamKey = P256.Signing.PrivateKey()

    static func sender(base: String, client: HTTPClient) throws -> APNsSender {
        var configuration = APNsSender.Configuration()
        configuration.topic = "com.example.app"
        configuration.teamID = "TEAM123456"
        configuration.keyID = "KEY1234567"
        configuration.key = teamKey.pemRepresentation
        configuration.baseURL = base
        configuration.sandboxBaseURL = base + "/sandbox"
        return try APNsSender(configuration: configuration, client: client)
    }

    @Test func theSilentPushCarriesTheSecretThatUnlocksOneCodeRequest() async throws {
        let apns = try FakeAPNs()
        try await apns.serve { base, client in
            let h = try await Harness(silentPush: try Self.sender(base: base, client: client)) {
                $0.phone.appVerification = .apns
                $0.phone.testPhoneNumbers = ["+16505553434": "123456"]
            }
            try await h.run { (c: Client) async throws in
                let phone: JSONValue = "+447400123456"
                // No proof, or an unknown receipt: refused before any SMS.
                #expect(
                    try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": phone]).errorCode
                        == "MISSING_APP_CREDENTIAL")
                #expect(try await c.post("/v1/accounts:verifyClient", [:]).errorCode == "MISSING_IOS_APP_TOKEN")

                let verified = try await c.post(
                    "/v1/accounts:verifyClient", ["appToken": .string(Self.deviceToken), "isSandbox": false])
                #expect(verified.status == 200)
                let receipt = try #require(verified.string("receipt"))
                #expect(verified.string("suggestedTimeout") == "5")

                // What reached "APNs": HTTP/2, token auth, a background push with the receipt and secret.
                let push = try #require(apns.pushes.withLock { $0.first })
                #expect(push.scheme == "https")  // an HTTP/2 request (HTTP/1.1 carries no :scheme)
                #expect(push.path == "/3/device/\(Self.deviceToken)")
                #expect(push.headers[HTTPField.Name("apns-topic")!] == "com.example.app")
                #expect(push.headers[HTTPField.Name("apns-push-type")!] == "background")
                #expect(push.headers[HTTPField.Name("apns-priority")!] == "5")
                let jwt = try #require(push.headers[.authorization]?.split(separator: " ").last.map(String.init))
                try Self.checkProviderToken(jwt)
                #expect(push.body["aps"]?["content-available"] == 1)
                let payload = try #require(push.body["com.google.firebase.auth"])
                #expect(payload["receipt"]?.stringValue == receipt)
                let secret = try #require(payload["secret"]?.stringValue)

                let wrong = try await c.post(
                    "/v1/accounts:sendVerificationCode",
                    ["phoneNumber": phone, "iosReceipt": .string(receipt), "iosSecret": "not-the-secret"])
                #expect(wrong.errorCode == "INVALID_APP_CREDENTIAL")
                let sent = try await c.post(
                    "/v1/accounts:sendVerificationCode",
                    ["phoneNumber": phone, "iosReceipt": .string(receipt), "iosSecret": .string(secret)])
                #expect(sent.status == 200)
                #expect(try await h.store.outbox(projectID: h.projectID).count == 1)
                // A receipt works once.
                let replay = try await c.post(
                    "/v1/accounts:sendVerificationCode",
                    ["phoneNumber": phone, "iosReceipt": .string(receipt), "iosSecret": .string(secret)])
                #expect(replay.errorCode == "INVALID_APP_CREDENTIAL")

                // Test numbers need no proof, as in Firebase.
                #expect(
                    try await c.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+16505553434"]).status == 200
                )

                // Sandbox tokens go to the sandbox host; a token APNs refuses is the app's fault.
                apns.refuse.withLock { $0 = (.badRequest, "BadDeviceToken") }
                let refused = try await c.post(
                    "/v1/accounts:verifyClient", ["appToken": .string(Self.deviceToken), "isSandbox": true])
                #expect(refused.errorCode == "INVALID_APP_CREDENTIAL")
                #expect(apns.pushes.withLock { $0.last?.path } == "/sandbox/3/device/\(Self.deviceToken)")
                apns.refuse.withLock { $0 = (.internalServerError, "InternalServerError") }
                let down = try await c.post("/v1/accounts:verifyClient", ["appToken": .string(Self.deviceToken)])
                #expect(down.status == 503)
            }
        }
    }

    @Test func aServerWithoutAnAPNsKeyRefusesVerifyClient() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let answer = try await c.post("/v1/accounts:verifyClient", ["appToken": .string(Self.deviceToken)])
            #expect(answer.errorCode == "OPERATION_NOT_ALLOWED")
            #expect(
                try await c.post("/v1/accounts:verifyClient", ["appToken": "not hex!"]).errorCode
                    == "INVALID_APP_CREDENTIAL")
        }
    }

    @Test func recaptchaConfigTellsClientsWhereReCAPTCHAIsEnforced() async throws {
        let verifier = RecaptchaVerifier(configuration: .init(secret: "server-secret", siteKey: "site-key-1"))
        for (mode, phone) in [(AppVerification.recaptcha, "ENFORCE"), (.apns, "OFF"), (.disabled, "OFF")] {
            let h = try await Harness(recaptcha: verifier) { $0.phone.appVerification = mode }
            try await h.run { (c: Client) async throws in
                let answer = try await c.send(
                    "/v2/recaptchaConfig?clientType=CLIENT_TYPE_IOS&version=RECAPTCHA_ENTERPRISE", method: .get)
                #expect(answer.status == 200)
                #expect(answer.string("recaptchaKey") == "projects/\(h.projectID)/keys/site-key-1")
                #expect(
                    answer["recaptchaEnforcementState"]
                        == [
                            ["provider": "EMAIL_PASSWORD_PROVIDER", "enforcementState": "OFF"],
                            ["provider": "PHONE_PROVIDER", "enforcementState": .string(phone)],
                        ])
            }
        }
        let bare = try await Harness()
        try await bare.run { (c: Client) async throws in
            #expect(try await c.send("/v2/recaptchaConfig", method: .get).string("recaptchaKey") == nil)
        }
    }

    /// ES256 over `header.claims`, with the team as issuer and the key id in the header, as APNs requires.
    static func checkProviderToken(_ jwt: String) throws {
        let parts = jwt.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try JSONValue.parse(try #require(Base64URL.decode(parts[0])))
        let claims = try JSONValue.parse(try #require(Base64URL.decode(parts[1])))
        #expect(header["alg"]?.stringValue == "ES256")
        #expect(header["kid"]?.stringValue == "KEY1234567")
        #expect(claims["iss"]?.stringValue == "TEAM123456")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        #expect(teamKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }
}
