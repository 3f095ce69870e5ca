import ArgumentParser
import CryptoExtras
import Dispatch
import Foundation
import HearthCore
import HearthTokens
import Synchronization

/// Measures what this machine can do at most, so server benchmarks can be read as ratios.
struct BenchCrypto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-crypto",
        abstract: "Measure this machine's RS256 signing and scrypt hashing throughput (used by scripts/bench).",
        discussion: """
            Prints one JSON object: rs256_signs_per_sec and scrypt_hashes_per_sec (or the one --only names) with the \
            given thread count.
            """
    )

    enum Measurement: String, ExpressibleByArgument, CaseIterable { case rs256, scrypt }

    @Option(help: "Measure only this (rs256 or scrypt); scripts/bench measures scrypt alone beside password sign-ins.")
    var only: Measurement?

    @Option(help: "Threads to measure with (default: one per core).")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Seconds per measurement.")
    var seconds: Double = 5

    @Option(help: "scrypt log2(N), as the server's passwordHashing.scrypt.logN.")
    var logN: Int = ScryptParameters.default.logN

    func run() throws {
        var fields = [#""threads":\#(threads)"#]
        if only != .scrypt { fields.append(#""rs256_signs_per_sec":\#(Int(try signatures()))"#) }
        if only != .rs256 {
            fields.append(#""scrypt_hashes_per_sec":\#(String(format: "%.1f", hashes())),"scrypt_logN":\#(logN)"#)
        }
        print("{\(fields.joined(separator: ","))}")
    }

    /// RS256 signatures per second of a payload the size of a real ID token's.
    func signatures() throws -> Double {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return measure { _ = try! JWS.signRS256(payload: Self.idTokenClaims, kid: "bench", key: key) }
    }

    /// The claims of a real ID token's size, which the ceiling and `bench-http`'s `POST /token` sign.
    static let idTokenClaims: JSONValue = [
        "iss": "https://securetoken.google.com/bench", "aud": "bench", "auth_time": 1_700_000_000,
        "user_id": "AbCdEfGhIjKlMnOpQrStUvWxYz12", "sub": "AbCdEfGhIjKlMnOpQrStUvWxYz12", "iat": 1_700_000_000,
        "exp": 1_700_003_600, "email": "someone@example.com", "email_verified": false,
        "firebase": ["identities": ["email": ["someone@example.com"]], "sign_in_provider": "password"],
    ]

    /// scrypt hashes per second with the server's parameters.
    func hashes() -> Double {
        let params = ScryptParameters(logN: logN, r: 8, p: 1)
        return measure {
            _ = PasswordHash.make(password: "correct horse battery", parameters: params, random: .system)
        }
    }

    /// Operations per second across `threads` threads running `work` back to back for `seconds`.
    func measure(_ work: @escaping @Sendable () -> Void) -> Double {
        let count = Atomic<Int>(0)
        let deadline = Date().addingTimeInterval(seconds)
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while Date() < deadline {
                work()
                count.add(1, ordering: .relaxed)
            }
        }
        return Double(count.load(ordering: .relaxed)) / Date().timeIntervalSince(start)
    }
}
