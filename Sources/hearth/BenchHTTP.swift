import ArgumentParser
import CryptoExtras
import Foundation
import HearthCore
import HearthTokens
import Hummingbird
import Logging

/// The anchor of scripts/bench: a bare Hummingbird router, one fixed JSON route and no middleware, in this same
/// binary, so it is built with the same toolchain and flags as the server it is compared with. What Hearth's
/// `GET /` costs beyond it is what Hearth's own HTTP front (middleware, context, response encoding) costs.
struct BenchHTTP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-http",
        abstract: "Serve a bare Hummingbird router for benchmarks: GET / answers a fixed JSON body, no middleware.",
        discussion: """
            The yardstick scripts/bench measures Hearth against in the same run: Hearth's figures are reported as \
            ratios of this router's requests per second. It answers GET / with {"service":"hearth","status":"ok"} \
            (the body Hearth's GET / answers), POST /post by reading the request's body and answering a fixed body \
            of the size and shape of an accounts:lookup answer, POST /token by reading the body and answering a \
            refresh's answer around an ID token it has just signed (RS256, the claims bench-crypto signs), and 404 \
            elsewhere; no store, no engine, no logging per request. \
            Prints "listening on http://HOST:PORT" once it accepts connections; stops on SIGINT or SIGTERM.
            """)

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on; 0 picks a free one.")
    var port = 9199

    func run() async throws {
        var logger = Logger(label: "hearth.bench-http")
        logger.logLevel = .warning
        let router = Router()
        let body = ByteBuffer(string: #"{"service":"hearth","status":"ok"}"#)
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
        }
        // What Hummingbird alone spends on a lookup's exchange: a body read, a lookup-sized JSON answer.
        let lookupShaped = ByteBuffer(string: #"{"kind":"identitytoolkit#GetAccountInfoResponse","users":[{"localId":"0123456789abcdefghijklmnopqr","email":"q@example.com","passwordHash":"UkVEQUNURUQ=","emailVerified":false,"passwordUpdatedAt":1.7e12,"providerUserInfo":[{"providerId":"password","federatedId":"q@example.com","email":"q@example.com","rawId":"q@example.com"}],"validSince":"1764100000","lastLoginAt":"1764100000000","createdAt":"1764100000000","lastRefreshAt":"2026-11-26T20:00:00.000Z"}]}"#)
        router.post("/post") { request, _ in
            _ = try await request.body.collect(upTo: 1 << 20)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: lookupShaped))
        }
        // What Hummingbird and one RS256 signature cost for a refresh's exchange: the floor under Hearth's refresh,
        // which does the same and besides reads and rotates the session in the store.
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let refreshToken = "hrt2_0190c5d2a7b4e81f9a3c6d20.1." + String(repeating: "A", count: 43)
        router.post("/token") { request, _ in
            _ = try await request.body.collect(upTo: 1 << 20)
            let idToken = try JWS.signRS256(payload: BenchCrypto.idTokenClaims, kid: "bench", key: key)
            let answer: JSONValue = [
                "access_token": .string(idToken), "expires_in": "3600", "token_type": "Bearer",
                "refresh_token": .string(refreshToken), "id_token": .string(idToken),
                "user_id": "AbCdEfGhIjKlMnOpQrStUvWxYz12", "project_id": "000000000000",
            ]
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: answer.jsonBytes)))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hearth"),
            onServerRunning: { [host] channel in
                // Unbuffered, so a script reading a pipe sees it at once.
                let line = "listening on http://\(host):\(channel.localAddress?.port ?? 0)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }, logger: logger)
        try await app.runService()
    }
}
