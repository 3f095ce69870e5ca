import Foundation
import HearthCore
import HearthProviders
import Testing

/// The remote-JWKS cache on its own, against the test identity provider.
@Suite("Remote key sets")
struct RemoteKeySetTests {
    static func withKeySet(
        maxAge: Int?, _ body: @Sendable (TestIdentityProvider, RemoteKeySet, ManualClock) async throws -> Void
    ) async throws {
        let idp = TestIdentityProvider(keys: [.p256("ec-1")])
        idp.maxAge.withLock { $0 = maxAge }
        try await idp.serve { base in
            let clock = ManualClock()
            let providers = IdentityProviders(timeout: .seconds(60), clock: clock.authClock)
            let keys = providers.keySet(base + "/apple/keys")
            #expect(providers.keySet(base + "/apple/keys") === keys, "one cache per URL")
            try await body(idp, keys, clock)
        }
    }

    @Test func concurrentLookupsShareOneFetch() async throws {
        try await Self.withKeySet(maxAge: 3600) { idp, keys, _ in
            idp.delay.withLock { $0 = .milliseconds(300) }
            let found = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 { group.addTask { try await keys.key(kid: "ec-1") != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(found == 10)
            #expect(idp.fetches("/apple/keys") == 1)
        }
    }

    @Test func maxAgeIsHonouredWithinBounds() async throws {
        try await Self.withKeySet(maxAge: 600) { idp, keys, clock in
            _ = try await keys.key(kid: "ec-1")
            clock.advance(599)
            _ = try await keys.key(kid: "ec-1")
            #expect(idp.fetches("/apple/keys") == 1)
            clock.advance(2)
            _ = try await keys.key(kid: "ec-1")
            #expect(idp.fetches("/apple/keys") == 2)
        }
        // max-age=10 is raised to the 5-minute floor; a week is cut to a day.
        try await Self.withKeySet(maxAge: 10) { idp, keys, clock in
            _ = try await keys.key(kid: "ec-1")
            clock.advance(299)
            _ = try await keys.key(kid: "ec-1")
            #expect(idp.fetches("/apple/keys") == 1)
        }
        try await Self.withKeySet(maxAge: 7 * 86400) { idp, keys, clock in
            _ = try await keys.key(kid: "ec-1")
            clock.advance(86401)
            _ = try await keys.key(kid: "ec-1")
            #expect(idp.fetches("/apple/keys") == 2)
        }
    }

    @Test func withNoKeysYetAFailingProviderIsAnIdPError() async throws {
        try await Self.withKeySet(maxAge: 3600) { idp, keys, _ in
            idp.failing.withLock { $0 = true }
            await #expect(
                throws: AuthError(.invalidIDPResponse, "The identity provider's keys at \(keys.url) could not be read.")
            ) {
                _ = try await keys.key(kid: "ec-1")
            }
        }
    }
}
