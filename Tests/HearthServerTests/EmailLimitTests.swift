import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthMessaging
import Hummingbird
import Synchronization
import Testing

/// Security issue 11, item 4: sendOobCode is throttled per address and per IP, atomically, and says nothing about
/// which addresses have accounts, neither in its answers nor in how long it takes.
@Suite("E-mail limits")
struct EmailLimitTests {
    @Test func parallelResetRequestsForOneAddressSendAtMostTheLimit() async throws {
        let h = try await Harness {
            $0.email.sendsPerAddressPerHour = 3
            $0.email.sendsPerIPPerHour = 0
        }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            let replies = try await withThrowingTaskGroup(of: Client.Reply.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await c.post(
                            "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.filter { $0.status == 200 }.count == 3)
            #expect(replies.filter { $0.errorCode == "RESET_PASSWORD_EXCEED_LIMIT" }.count == 17)
            #expect(try await h.store.emailOutbox(projectID: h.projectID).count == 3)
            // An unknown address is counted the same way, so the limit does not tell them apart.
            for _ in 0..<3 {
                #expect(
                    try await c.post(
                        "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "who@example.com"]
                    ).status == 200)
            }
            #expect(
                try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "who@example.com"]
                ).errorCode == "RESET_PASSWORD_EXCEED_LIMIT")
            // The window passes.
            h.clock.advance(3601)
            #expect(
                try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"]
                ).status == 200)
        }
    }

    @Test func oneIPIsLimitedAcrossAddresses() async throws {
        let h = try await Harness {
            $0.email.sendsPerIPPerHour = 4
            $0.emailEnumerationProtection = true
        }
        try await h.run { (c: Client) async throws in
            var statuses: [String] = []
            for i in 0..<6 {
                let reply = try await c.post(
                    "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string("u\(i)@example.com")])
                statuses.append(reply.errorCode ?? "\(reply.status)")
            }
            #expect(statuses == ["200", "200", "200", "200", "QUOTA_EXCEEDED", "QUOTA_EXCEEDED"])
        }
    }

    @Test func theEmulatorHasNoLimits() async throws {
        let h = try await Harness(emulator: true) {
            $0.email.sendsPerAddressPerHour = 1
            $0.email.sendsPerIPPerHour = 1
        }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "ada@example.com", password: "secret1")
            for _ in 0..<5 {
                #expect(
                    try await c.post(
                        "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com"]
                    ).status == 200)
            }
            #expect(try await h.store.emailOutbox(projectID: h.projectID).count == 5)
        }
    }

    /// A slow mail relay makes the known-address path slow; the unknown-address path waits as long.
    @Test func knownAndUnknownAddressesTakeAsLong() async throws {
        let router = Router()
        router.post("/mail") { _, _ -> Response in
            try await Task.sleep(for: .milliseconds(150))
            return Response(status: .ok)
        }
        try await serveOnLoopback(router) { base in
            let h = try await Harness(
                emailSender: WebhookEmailSender(configuration: .init(url: base + "/mail", secret: "s"))
            ) {
                $0.email.sendsPerAddressPerHour = 0
                $0.email.sendsPerIPPerHour = 0
            }
            try await h.run { (c: Client) async throws in
                _ = try await c.signUp(email: "ada@example.com", password: "secret1")
                func timed(_ email: String) async throws -> Double {
                    let start = ContinuousClock.now
                    let reply = try await c.post(
                        "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)])
                    #expect(reply.status == 200)
                    let d = ContinuousClock.now - start
                    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                }
                for _ in 0..<12 { _ = try await timed("ada@example.com") }
                var known: [Double] = []
                var unknown: [Double] = []
                for i in 0..<6 {
                    known.append(try await timed("ada@example.com"))
                    unknown.append(try await timed("nobody\(i)@example.com"))
                }
                let k = known.sorted()[3]
                let u = unknown.sorted()[3]
                #expect(k > 0.14, "the relay's delay is in the known path (\(k))")
                // Without pacing the unknown path takes a few milliseconds; with it, about as long as a send.
                // Only the lower bound: under a loaded test run the paced path can overshoot, and an unknown
                // address answered *fast* is the leak this guards against.
                #expect(u > k * 0.5, "median known \(k) s vs unknown \(u) s")
            }
        }
    }

    /// The wait of a request that sends nothing is drawn from recorded sends, so it has their distribution: sends
    /// are skewed (mostly quick, a few slow), and a mean with jitter would answer most requests later than most
    /// sends, which a few hundred paired requests measure. Drawn with a seeded generator, so nothing here is timed.
    @Test func theWaitForAnUnknownAddressFollowsTheSendsDistribution() {
        let pacing = EmailPacing()
        let sends = Array(repeating: 0.002, count: 90) + Array(repeating: 0.05, count: 10)
        for seconds in sends.shuffled() { pacing.record(seconds) }
        var random = SplitMix64(seed: 25)
        let waits = (0..<2000).map { _ in pacing.delay(using: &random) }
        #expect(Set(waits).isSubset(of: Set(sends)))
        #expect(waits.sorted()[1000] == 0.002, "the median wait is the median send")
        let slow = Double(waits.filter { $0 == 0.05 }.count) / Double(waits.count)
        #expect(slow > 0.07 && slow < 0.13, "as many slow waits as slow sends (\(slow))")
    }

    @Test func aChangeToATakenAddressIsNotRevealedUnderEnumerationProtection() async throws {
        for protected in [true, false] {
            let h = try await Harness { $0.emailEnumerationProtection = protected }
            try await h.run { (c: Client) async throws in
                _ = try await c.signUp(email: "taken@example.com", password: "secret1")
                let session = try await c.signUp(email: "ada@example.com", password: "secret1")
                let reply = try await c.post(
                    "/v1/accounts:sendOobCode",
                    [
                        "requestType": "VERIFY_AND_CHANGE_EMAIL",
                        "idToken": .string(try #require(session.string("idToken"))), "newEmail": "taken@example.com",
                    ])
                if protected {
                    #expect(reply.status == 200)
                    #expect(try await h.store.emailOutbox(projectID: h.projectID).isEmpty, "nothing is sent")
                } else {
                    #expect(reply.errorCode == "EMAIL_EXISTS")
                }
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so a draw is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
