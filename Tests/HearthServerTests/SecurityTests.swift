import Foundation
import HTTPTypes
import HearthCore
import HearthServer
import HearthTokens
import Hummingbird
import NIOCore
import Testing

@Suite("Security: limits under concurrency, session ends, input rules")
struct SecurityTests {
    @Test func parallelWrongGuessesCheckAtMostTheLimit() async throws {
        let limit = 4
        let h = try await Harness { $0.rateLimits.failedPasswordsPerAccount = limit }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "target@example.com", password: "right-password")
            let codes = try await withThrowingTaskGroup(of: String?.self) { group in
                for i in 0..<25 {
                    group.addTask {
                        let reply = try await c.signIn("target@example.com", i == 24 ? "right-password" : "wrong-\(i)")
                        return reply.status == 200 ? "OK" : reply.errorCode
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            let checked = codes.filter { $0 != "TOO_MANY_ATTEMPTS_TRY_LATER" }
            #expect(checked.count <= limit, "\(codes)")
            #expect(codes.contains("TOO_MANY_ATTEMPTS_TRY_LATER"))
        }
    }

    @Test func aCorrectPasswordDoesNotUseUpAnAttempt() async throws {
        let h = try await Harness { $0.rateLimits.failedPasswordsPerAccount = 2 }
        try await h.run { (c: Client) async throws in
            _ = try await c.signUp(email: "fine@example.com", password: "right-password")
            for _ in 0..<5 { #expect(try await c.signIn("fine@example.com", "right-password").status == 200) }
            #expect(try await c.signIn("fine@example.com", "wrong").errorCode == "INVALID_LOGIN_CREDENTIALS")
            #expect(try await c.signIn("fine@example.com", "right-password").status == 200)
        }
    }

    @Test func anIPOverItsSignUpLimitLearnsNothingAboutExistingAddresses() async throws {
        let h = try await Harness { $0.rateLimits.signUpsPerIPPerHour = 1 }
        try await h.run { (c: Client) async throws in
            #expect(try await c.signUp(email: "taken@example.com", password: "secret-1").status == 200)
            let probe = try await c.signUp(email: "taken@example.com", password: "secret-1")
            #expect(probe.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    /// The manual clock stands still, so every step below happens within one second: `validSince` alone could not
    /// tell the old session from the new.
    @Test func changingThePasswordEndsSessionsStartedInTheSameSecond() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let first = try await c.signUp(email: "same@example.com", password: "secret-1")
            let other = try await c.signIn("same@example.com", "secret-1")
            let changed = try await c.post(
                "/v1/accounts:update",
                ["idToken": .string(first.string("idToken")!), "password": "secret-2", "returnSecureToken": true])
            #expect(changed.status == 200)
            #expect(try await c.refresh(other.string("refreshToken")!).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.refresh(first.string("refreshToken")!).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.refresh(changed.string("refreshToken")!).status == 200, "the new session lives")
        }
    }

    @Test func adminRevocationAndDisablingEndSessionsStartedInTheSameSecond() async throws {
        let h = try await Harness()
        let account = try await TestServiceAccount.register(in: h)
        try await h.run { (c: Client) async throws in
            let token = try await account.accessToken(c, now: h.clock.authClock.now())
            let update = "/v1/projects/\(h.projectID)/accounts:update"
            let a = try await c.signUp(email: "revoked@example.com", password: "secret-1")
            let uid = JSONValue.string(a.string("localId")!)
            let validSince = JSONValue.string(String(h.clock.authClock.now().secondsSince1970))
            #expect(try await c.admin(update, ["localId": uid, "validSince": validSince], token: token).status == 200)
            #expect(try await c.refresh(a.string("refreshToken")!).errorCode == "TOKEN_EXPIRED")

            let b = try await c.signIn("revoked@example.com", "secret-1")
            #expect(try await c.admin(update, ["localId": uid, "disableUser": true], token: token).status == 200)
            #expect(try await c.admin(update, ["localId": uid, "disableUser": false], token: token).status == 200)
            #expect(try await c.refresh(b.string("refreshToken")!).status == 400, "re-enabling does not revive it")
        }
    }

    @Test func oneByteLimitForPasswordsOnEveryPath() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            // Six characters, but each carries thousands of combining marks: 18 kB to hash.
            let heavy = String(repeating: "a" + String(repeating: "\u{0301}", count: 1500), count: 6)
            #expect(heavy.count == 6 && heavy.utf8.count > PasswordPolicy.maxBytes)
            let signUp = try await c.signUp(email: "heavy@example.com", password: heavy)
            #expect(signUp.errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            let user = try await c.signUp(email: "light@example.com", password: "secret-1")
            let update = try await c.post(
                "/v1/accounts:update", ["idToken": .string(user.string("idToken")!), "password": .string(heavy)])
            #expect(update.errorCode == "PASSWORD_DOES_NOT_MEET_REQUIREMENTS")
            #expect(try await c.signIn("light@example.com", heavy).errorCode == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func addressesAreOneAccountWhateverTheirUnicodeForm() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            #expect(try await c.signUp(email: "caf\u{E9}@example.com", password: "secret-1").status == 200)
            #expect(try await c.signUp(email: "cafe\u{301}@example.com", password: "secret-1").errorCode == "EMAIL_EXISTS")
            #expect(try await c.signIn("CAFE\u{301}@example.com", "secret-1").status == 200)
        }
    }

    @Test func credentialsInAPostQueryStringAreIgnored() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let user = try await c.signUp(email: "q@example.com", password: "secret-1")
            let signIn = try await c.post(
                "/v1/accounts:signInWithPassword?password=secret-1", ["email": "q@example.com"])
            #expect(signIn.errorCode == "MISSING_PASSWORD")
            let refresh = try await c.post(
                "/v1/token?refresh_token=\(user.string("refreshToken")!)", ["grant_type": "refresh_token"])
            #expect(refresh.status == 400)
        }
    }

    @Test func anIDTokenIsRefusedBeforeItsNotBefore() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let user = try await c.signUp(email: "nbf@example.com", password: "secret-1")
            var payload = try claims(of: user.string("idToken"))
            payload["nbf"] = .number(h.clock.authClock.now().timeIntervalSince1970 + 600)
            let signer = try h.engine.idTokens.keyRing.currentSigner()
            let early = try JWS.signRS256(payload: .object(payload), kid: signer.kid, key: signer.privateKey)
            #expect(try await c.lookup(early).errorCode == "INVALID_ID_TOKEN")
            payload["nbf"] = .number(h.clock.authClock.now().timeIntervalSince1970 - 10)
            let started = try JWS.signRS256(payload: .object(payload), kid: signer.kid, key: signer.privateKey)
            #expect(try await c.lookup(started).status == 200)
        }
    }
}

@Suite("Client address behind proxies")
struct ClientAddressTests {
    func headers(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    @Test func networksMatchByPrefix() throws {
        let net = try #require(IPNetwork("10.1.0.0/16"))
        #expect(net.contains("10.1.200.3") && !net.contains("10.2.0.1") && !net.contains("::1"))
        #expect(try #require(IPNetwork("::1")).contains("::1"))
        #expect(try #require(IPNetwork("127.0.0.1/32")).contains("::ffff:127.0.0.1"))
        #expect(try #require(IPNetwork("fd00::/8")).contains("fd12:3456::1"))
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("nope") == nil)
    }

    @Test func forwardingHeadersCountOnlyFromATrustedPeer() throws {
        let trusted = [try #require(IPNetwork("10.0.0.0/8"))]
        let spoofed = headers([("X-Forwarded-For", "1.2.3.4")])
        #expect(ClientAddress.client(peer: "203.0.113.9", headers: spoofed, trusted: trusted) == "203.0.113.9")
        #expect(ClientAddress.client(peer: "10.0.0.2", headers: spoofed, trusted: trusted) == "1.2.3.4")
        // The client wrote the left entry itself; the proxy appended the address it saw.
        let chain = headers([("X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.5")])
        #expect(ClientAddress.client(peer: "10.0.0.2", headers: chain, trusted: trusted) == "198.51.100.7")
        let forwarded = headers([("Forwarded", "for=192.0.2.60;proto=https, for=\"[2001:db8::17]:4711\"")])
        #expect(ClientAddress.client(peer: "10.0.0.2", headers: forwarded, trusted: trusted) == "2001:db8::17")
        let garbage = headers([("X-Forwarded-For", "unknown")])
        #expect(ClientAddress.client(peer: "10.0.0.2", headers: garbage, trusted: trusted) == "10.0.0.2")
    }

    /// The peer's address as abuse limits and audit entries see it: IPv4 is printed by Hearth, the rest by NIO.
    @Test(arguments: ["0.0.0.0", "127.0.0.1", "255.255.255.255", "10.20.100.9", "1.2.3.4", "192.168.0.10", "99.100.9.200"])
    func aPeerAddressReadsAsNIOWritesIt(_ address: String) throws {
        let peer = try SocketAddress(ipAddress: address, port: 443)
        #expect(ClientAddress.text(of: peer) == address)
        #expect(ClientAddress.text(of: peer) == peer.ipAddress)
    }

    @Test func anIPv6PeerAndNoPeer() throws {
        #expect(ClientAddress.text(of: try SocketAddress(ipAddress: "2001:db8::17", port: 1)) == "2001:db8::17")
        #expect(ClientAddress.text(of: nil) == nil)
    }
}
