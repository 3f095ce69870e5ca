import Foundation
import HearthCore
import HearthEngine
import Testing

/// Console admins through the engine, on a clock the test moves: the setup link, the two sign-in steps, the
/// lockout's backoff, and the session's idle and absolute limits.
@Suite("Console admins")
struct ConsoleAdminTests {
    static let password = "a long console password"

    /// An admin set up through the link; returns the TOTP secret (the setup spent the current step's code).
    func setUp(_ h: Harness, email: String = "ops@example.com") async throws -> [UInt8] {
        let token = try await h.engine.createConsoleAdmin(email: email, role: .admin)
        let (shown, secret, _) = try await h.engine.beginConsoleSetup(token: token)
        #expect(shown == email)
        let bytes = try #require(Base32.decode(secret))
        let code = TOTP.code(secret: bytes, step: TOTP.step(at: h.clock.authClock.now()))
        let recovery = try await h.engine.completeConsoleSetup(token: token, password: Self.password, code: code)
        #expect(recovery.count == 10)
        // The link is spent.
        await #expect(throws: AuthError(.invalidOobCode, "The setup link is invalid, used or expired.")) {
            _ = try await h.engine.beginConsoleSetup(token: token)
        }
        return bytes
    }

    func signIn(_ h: Harness, secret: [UInt8], email: String = "ops@example.com") async throws -> String {
        let proof = try await h.engine.consolePasswordStep(email: email, password: Self.password, binding: "browser")
        // A later step than the one the setup (or a previous sign-in) spent.
        h.clock.advance(30)
        let code = TOTP.code(secret: secret, step: TOTP.step(at: h.clock.authClock.now()))
        return try await h.engine.consoleCodeStep(email: email, proof: proof, code: code, binding: "browser").cookie
    }

    @Test func aSetupLinkExpiresAfterFifteenMinutes() async throws {
        let h = try await Harness()
        let token = try await h.engine.createConsoleAdmin(email: "late@example.com", role: .viewer)
        h.clock.advance(15 * 60 + 1)
        await #expect(throws: AuthError.self) { _ = try await h.engine.beginConsoleSetup(token: token) }
        // `reset` issues a new one.
        let again = try await h.engine.resetConsoleAdmin(email: "late@example.com")
        #expect(try await h.engine.beginConsoleSetup(token: again).email == "late@example.com")
    }

    @Test func theCodeStepNeedsThePasswordStepsProofForThisBrowserAndAFreshCode() async throws {
        let h = try await Harness()
        let secret = try await setUp(h)
        let proof = try await h.engine.consolePasswordStep(email: "ops@example.com", password: Self.password, binding: "browser")
        let current = TOTP.code(secret: secret, step: TOTP.step(at: h.clock.authClock.now()))
        // The code the setup used is spent.
        await #expect(throws: AuthError(.invalidCode)) {
            _ = try await h.engine.consoleCodeStep(email: "ops@example.com", proof: proof, code: current, binding: "browser")
        }
        h.clock.advance(30)
        let next = TOTP.code(secret: secret, step: TOTP.step(at: h.clock.authClock.now()))
        // The proof belongs to the browser that passed the password step.
        await #expect(throws: AuthError.self) {
            _ = try await h.engine.consoleCodeStep(email: "ops@example.com", proof: proof, code: next, binding: "another browser")
        }
        await #expect(throws: AuthError.self) {
            _ = try await h.engine.consoleCodeStep(email: "ops@example.com", proof: "forged", code: next, binding: "browser")
        }
        let signedIn = try await h.engine.consoleCodeStep(email: "ops@example.com", proof: proof, code: next, binding: "browser")
        #expect(try await h.engine.consoleSession(cookie: signedIn.cookie)?.email == "ops@example.com")
    }

    @Test func repeatedFailuresLockOutWithAGrowingBackoff() async throws {
        let h = try await Harness()
        _ = try await setUp(h)
        for _ in 0..<5 {
            await #expect(throws: AuthError(.invalidLoginCredentials)) {
                _ = try await h.engine.consolePasswordStep(email: "ops@example.com", password: "wrong", binding: "b")
            }
        }
        // Locked: even the right password is refused until the lock ends.
        await #expect(throws: AuthError.self) {
            _ = try await h.engine.consolePasswordStep(email: "ops@example.com", password: Self.password, binding: "b")
        }
        h.clock.advance(31)
        _ = try await h.engine.consolePasswordStep(email: "ops@example.com", password: Self.password, binding: "b")
        // A success clears the count only at the code step; one more failure now locks for twice as long.
        await #expect(throws: AuthError(.invalidLoginCredentials)) {
            _ = try await h.engine.consolePasswordStep(email: "ops@example.com", password: "wrong", binding: "b")
        }
        h.clock.advance(31)
        await #expect(throws: AuthError.self) {
            _ = try await h.engine.consolePasswordStep(email: "ops@example.com", password: Self.password, binding: "b")
        }
        h.clock.advance(30)
        _ = try await h.engine.consolePasswordStep(email: "ops@example.com", password: Self.password, binding: "b")
    }

    @Test func sessionsEndAfterThirtyIdleMinutesOrTwelveHours() async throws {
        let h = try await Harness()
        let secret = try await setUp(h)
        let idle = try await signIn(h, secret: secret)
        h.clock.advance(29 * 60)
        #expect(try await h.engine.consoleSession(cookie: idle) != nil)
        h.clock.advance(30 * 60 + 1)
        #expect(try await h.engine.consoleSession(cookie: idle) == nil)

        let busy = try await signIn(h, secret: secret)
        for _ in 0..<(12 * 3) {
            #expect(try await h.engine.consoleSession(cookie: busy) != nil)
            h.clock.advance(20 * 60)
        }
        #expect(try await h.engine.consoleSession(cookie: busy) == nil)
    }

    @Test func disablingAnAdminEndsTheirSessions() async throws {
        let h = try await Harness()
        let secret = try await setUp(h)
        let cookie = try await signIn(h, secret: secret)
        try await h.engine.setConsoleAdminDisabled(email: "ops@example.com", disabled: true)
        #expect(try await h.engine.consoleSession(cookie: cookie) == nil)
        try await h.engine.setConsoleAdminDisabled(email: "ops@example.com", disabled: false)
        #expect(try await h.engine.consoleSession(cookie: cookie) == nil)
    }
}
