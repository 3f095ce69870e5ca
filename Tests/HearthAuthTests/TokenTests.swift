import Foundation
import HearthTestSupport
import Testing

@testable import HearthAuth

@Suite("ID tokens")
struct TokenTests {
    @Test func concurrentCallersShareOneRefresh() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "many callers").user
        let before = user.refreshToken

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await user.getIDToken(forcingRefresh: true) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(user.refreshRequests == 1)
        #expect(Set(tokens).count == 1)
        #expect(user.refreshToken != before, "the server rotates refresh tokens; the new one must be kept")
    }

    @Test func aFreshTokenIsReusedUntilFiveMinutesBeforeExpiry() async throws {
        let server = try await TestServer()
        let user = try await server.makeAuth().createUser(withEmail: uniqueEmail(), password: "cached token").user
        let first = try await user.getIDToken()
        let second = try await user.getIDToken()
        #expect(first == second)
        #expect(user.refreshRequests == 0)

        // A one-minute token is always inside the five-minute margin: every use refreshes it.
        let shortLived = try await TestServer(tokens: ["idTokenLifetimeSeconds": 60])
        let short = try await shortLived.makeAuth().createUser(withEmail: uniqueEmail(), password: "short token").user
        _ = try await short.getIDToken()
        _ = try await short.getIDToken()
        #expect(short.refreshRequests == 2)
    }

    @Test func aNetworkErrorKeepsTheUserSignedIn() async throws {
        let server = try await TestServer()
        let auth = server.makeAuth()
        let user = try await auth.createUser(withEmail: uniqueEmail(), password: "offline for a bit").user

        auth.useEmulator(withHost: "127.0.0.1", port: try closedPort())
        let error = await #expect(throws: NSError.self) { try await user.getIDToken(forcingRefresh: true) }
        #expect(error?.code == AuthErrorCode.networkError.rawValue)
        #expect(error?.userInfo[NSUnderlyingErrorKey] != nil)
        #expect(auth.currentUser === user)

        auth.useEmulator(withHost: "127.0.0.1", port: server.port)
        _ = try await user.getIDToken(forcingRefresh: true)
        #expect(auth.currentUser === user)
    }

    @Test func tokenResultCarriesClaimsAndDates() async throws {
        let server = try await TestServer()
        let user = try await server.makeAuth().signInAnonymously().user
        let result = try await user.getIDTokenResult(forcingRefresh: true)
        #expect(result.claims["user_id"] as? String == user.uid)
        #expect(result.claims["aud"] as? String == TestServer.projectID)
        #expect(result.signInProvider == "anonymous")
        #expect(result.issuedAtDate <= Date())
        #expect(abs(result.expirationDate.timeIntervalSince(result.issuedAtDate) - 3600) < 1)
    }
}
