import Foundation
import HearthAuth
import Testing

@Suite("Cancelled calls")
struct CancellationTests {
    /// A call cancelled at any moment, answer in flight or not, ends (with the answer or with an error) and leaves the
    /// SDK working. On Linux, FoundationNetworking's async `URLSession.data(for:)` crashed or deadlocked when the cancel
    /// met the answer's completion.
    @Test(.timeLimit(.minutes(5))) func callsCancelledAtAnyMomentEndAndTheSDKKeepsWorking() async throws {
        let server = try await TestServer()
        // 300 rounds take 4 s alone and took over 2 minutes under the whole suite's load: at most 60 s of them.
        let deadline = ContinuousClock.now + .seconds(60)
        for round in 0..<300 where ContinuousClock.now < deadline {
            let auth = server.makeAuth()
            let call = Task { try await auth.signInAnonymously() }
            try await Task.sleep(for: .microseconds(round % 40 * 50))
            call.cancel()
            _ = try? await call.value
        }
        #expect(try await server.makeAuth().signInAnonymously().user.isAnonymous)
    }
}
