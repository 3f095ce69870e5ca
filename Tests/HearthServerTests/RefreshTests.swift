import Foundation
import GRDB
import HearthCore
import HearthTokens
import NIOCore
import Testing

@testable import HearthSQLite

@Suite("securetoken v1/token")
struct RefreshTests {
    @Test func refreshRotatesAndKeepsSessionFacts() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp(email: "r1@example.com", password: "pass-word")
            h.clock.advance(120)
            let r = try await c.refresh(up.string("refreshToken")!)
            #expect(r.status == 200)
            #expect(r.string("token_type") == "Bearer")
            #expect(r.string("expires_in") == "3600")
            #expect(r.string("user_id") == up.string("localId"))
            #expect(r.string("access_token") == r.string("id_token"))
            #expect(r.string("project_id")?.allSatisfy(\.isNumber) == true)
            #expect(r.string("refresh_token") != up.string("refreshToken"))
            let before = try claims(of: up.string("idToken"))
            let after = try claims(of: r.string("id_token"))
            #expect(after["auth_time"] == before["auth_time"])
            #expect(after["iat"]!.doubleValue! >= before["iat"]!.doubleValue! + 120)
            #expect(after["firebase"]?["sign_in_provider"]?.stringValue == "password")
        }
    }

    @Test func formBodyWithSnakeCaseKeys() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp()
            let token = up.string("refreshToken")!
            let r = try await c.send(
                "/securetoken.googleapis.com/v1/token", method: .post,
                body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(token)"),
                contentType: "application/x-www-form-urlencoded")
            #expect(r.status == 200)
            #expect(r.string("user_id") == up.string("localId"))
        }
    }

    @Test func racingRefreshesGetTheSameSuccessor() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let token = try await c.signUp().string("refreshToken")!
            let replies = try await withThrowingTaskGroup(of: Client.Reply.self) { group in
                for _ in 0..<8 { group.addTask { try await c.refresh(token) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 200 })
            #expect(Set(replies.compactMap { $0.string("refresh_token") }).count == 1)
        }
    }

    @Test func replayAfterGraceRevokesTheWholeFamily() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let first = try await c.signUp().string("refreshToken")!
            let second = try #require(try await c.refresh(first).string("refresh_token"))
            h.clock.advance(31)
            let replay = try await c.refresh(first)
            #expect(replay.status == 400)
            #expect(replay.errorCode == "TOKEN_EXPIRED")
            // The thief's replay also ends the legitimate holder's session.
            #expect(try await c.refresh(second).errorCode == "TOKEN_EXPIRED")
        }
    }

    @Test func rotationCanBeTurnedOff() async throws {
        let h = try await Harness { $0.tokens.rotateRefreshTokens = false }
        try await h.run { (c: Client) async throws in
            let token = try await c.signUp().string("refreshToken")!
            #expect(try await c.refresh(token).string("refresh_token") == token)
            h.clock.advance(3600)
            #expect(try await c.refresh(token).string("refresh_token") == token)
        }
    }

    @Test func disabledUsersCannotRefresh() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp()
            var user = try #require(try await h.store.user(projectID: h.projectID, uid: up.string("localId")!))
            user.disabled = true
            try await h.store.updateUser(user)
            #expect(try await c.refresh(up.string("refreshToken")!).errorCode == "USER_DISABLED")
        }
    }

    @Test(arguments: [
        (#"{"refreshToken":"x"}"#, "MISSING_GRANT_TYPE"),
        (#"{"grantType":"password","refreshToken":"x"}"#, "INVALID_GRANT_TYPE"),
        (#"{"grantType":"refresh_token"}"#, "MISSING_REFRESH_TOKEN"),
        (#"{"grantType":"refresh_token","refreshToken":"garbage"}"#, "INVALID_REFRESH_TOKEN"),
        (
            #"{"grantType":"refresh_token","refreshToken":"hrt1_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#,
            "INVALID_REFRESH_TOKEN"
        ),
    ])
    func badRefreshRequests(body: String, code: String) async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let r = try await c.send("/v1/token", method: .post, body: ByteBuffer(string: body))
            #expect(r.status == 400)
            #expect(r.errorCode == code)
        }
    }

    @Test func refreshTokensAreStoredOnlyAsHashes() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let token = try await c.signUp().string("refreshToken")!
            let file = h.directory.appendingPathComponent("hearth.sqlite")
            var bytes = try Data(contentsOf: file)
            if let wal = try? Data(contentsOf: URL(fileURLWithPath: file.path + "-wal")) { bytes.append(wal) }
            #expect(bytes.range(of: Data(token.utf8)) == nil)
            #expect(bytes.range(of: Data(token.suffix(43).utf8)) == nil)
        }
    }

    /// A token names where it is stored; naming a real place proves nothing without the token's secret. A forged
    /// token is unknown, and neither ends nor touches the session it names.
    @Test func aTokenThatNamesARealSessionWithoutItsSecretIsUnknown() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let token = try await c.signUp().string("refreshToken")!
            let named = String(token.dropLast(43))
            let other = try await c.signUp().string("refreshToken")!
            let next = try #require(try await c.refresh(token).string("refresh_token"))
            #expect(next.hasPrefix(named.replacingOccurrences(of: ".0.", with: ".1.")))
            for forged in [
                named + String(repeating: "A", count: 43),  // the used token's place, another secret
                String(next.dropLast(43) + other.suffix(43)),  // the current token's place, another session's secret
                named.replacingOccurrences(of: ".0.", with: ".2.") + next.suffix(43),  // a place not yet used
            ] {
                let r = try await c.refresh(forged)
                #expect(r.status == 400)
                #expect(r.errorCode == "INVALID_REFRESH_TOKEN")
            }
            h.clock.advance(31)
            #expect(try await c.refresh(next).status == 200)
        }
    }

    /// Tokens issued before tokens named their session (`hrt1_`, keyed by hash; the migration kept each one's hash
    /// with its place) refresh as before: the successor is a token of the new shape in the same session, a racing
    /// use gets the same successor, and a replay after the grace ends the session.
    @Test func aTokenIssuedBeforeTokensNamedTheirSessionStillRefreshes() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            let up = try await c.signUp()
            let session = try #require(up.string("refreshToken")?.dropFirst(5).split(separator: ".").first)
            // What v19_refresh_tokens_keyed_by_family leaves of a session stored before it.
            let legacy = "hrt1_" + String(repeating: "L", count: 43)
            let hash = Data(RefreshTokenCodec.hash(legacy))
            try await h.store.pool.write { db in
                try db.execute(
                    sql: "UPDATE refresh_tokens SET hash = ? WHERE family_id = ? AND generation = 0",
                    arguments: [hash, String(session)])
                try db.execute(
                    sql: "INSERT INTO legacy_refresh_tokens (hash, family_id, generation) VALUES (?, ?, 0)",
                    arguments: [hash, String(session)])
            }

            let first = try await c.refresh(legacy)
            #expect(first.status == 200)
            #expect(first.string("user_id") == up.string("localId"))
            let successor = try #require(first.string("refresh_token"))
            #expect(successor.hasPrefix("hrt2_\(session).1."))
            #expect(try await c.refresh(legacy).string("refresh_token") == successor)
            h.clock.advance(31)
            #expect(try await c.refresh(legacy).errorCode == "TOKEN_EXPIRED")
            #expect(try await c.refresh(successor).errorCode == "TOKEN_EXPIRED")
        }
    }
}
