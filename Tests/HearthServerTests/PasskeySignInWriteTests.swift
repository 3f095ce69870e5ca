import Crypto
import Foundation
import GRDB
import HearthCore
import HearthTestSupport
import HearthWebAuthnTestSupport
import Hummingbird
import Synchronization
import Testing

@testable import HearthSQLite

/// What `passkeySignIn:finalize` writes, seen from the SQLite writer: one transaction for a sign-in, one for a
/// verified sign-in refused afterwards (the challenge and the counter), no change for a replay; `beforeSignIn` is
/// asked before anything is written, and not for a replay.
@Suite("Passkey sign-in writes")
struct PasskeySignInWriteTests {
    static let origin = "https://app.example.com"

    /// Counts the committed write transactions that changed a row of a table a passkey sign-in writes (the audit
    /// log's batches, written in the background, are not among them). GRDB asks `observes` with what each statement
    /// may write, as SQLite's authorizer reports it, and the writer's total of changed rows says whether any did; the
    /// update hook would miss these WITHOUT ROWID tables. (A replay's transaction, which takes no challenge, changes
    /// nothing.)
    final class SignInWrites: TransactionObserver, Sendable {
        static let tables: Set<String> = [
            "passkey_challenges", "passkey_credentials", "refresh_families", "refresh_tokens", "users",
        ]
        private let state = Mutex((touched: false, commits: 0, changes: Int?.none))

        var commits: Int { state.withLock { $0.commits } }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            if Self.tables.contains(eventKind.tableName) { state.withLock { $0.touched = true } }
            return false
        }

        func databaseDidChange(with event: DatabaseEvent) {}

        func databaseDidCommit(_ db: Database) {
            let changes = db.totalChangesCount
            state.withLock { s in
                if s.touched && s.changes != changes { s.commits += 1 }
                s.touched = false
                s.changes = changes
            }
        }

        func databaseDidRollback(_ db: Database) { state.withLock { $0.touched = false } }
    }

    /// A user signed up through the wire, holding `authenticator`'s passkey.
    static func enrolled(_ h: Harness, _ c: Client, _ authenticator: SoftwareAuthenticator) async throws -> String {
        let uid = try #require(try await c.signUp(email: "ada@example.com", password: "correct horse").string("localId"))
        var user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
        user.passkeys = [
            PasskeyCredential(
                credentialID: authenticator.credentialID, userHandle: Array(repeating: 7, count: 32),
                publicKey: authenticator.key.cose.encoded, algorithm: -7, name: "Phone", createdAt: h.clock.authClock.now())
        ]
        try await h.store.updateUser(user)
        return uid
    }

    /// A fresh challenge's assertion, as the platform makes it, in the wire's shape.
    static func assertion(_ c: Client, _ authenticator: SoftwareAuthenticator, signCount: UInt32) async throws
        -> JSONValue
    {
        let options = try await c.post("/v2/accounts/passkeySignIn:start", [:])
        let challenge = try #require(Base64.decode(options["credentialRequestOptions"]?["challenge"]?.stringValue ?? ""))
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: challenge, origin: origin)
        let authData = authenticator.authenticatorData(
            rpID: "localhost", flags: SoftwareAuthenticator.upFlag | SoftwareAuthenticator.uvFlag,
            signCount: signCount, attested: false)
        let signature = authenticator.key.sign(authData + Array(SHA256.hash(data: clientData)))
        return [
            "authenticatorAuthenticationResponse": [
                "id": .string(Base64.encode(authenticator.credentialID)),
                "response": [
                    "clientDataJSON": .string(Base64.encode(clientData)),
                    "authenticatorData": .string(Base64.encode(authData)),
                    "signature": .string(Base64.encode(signature)),
                    "userHandle": .string(Base64.encode(Array(repeating: 7, count: 32))),
                ],
            ]
        ]
    }

    static func finalize(_ c: Client, _ body: JSONValue) async throws -> Client.Reply {
        try await c.post("/v2/accounts/passkeySignIn:finalize", body)
    }

    static func configure(_ project: inout ProjectConfig) {
        project.passkeys = PasskeySettings(rpID: "localhost", expectedOrigins: [origin])
    }

    @Test func aSignInIsOneWriteTransactionAndAReplayWritesNothing() async throws {
        let h = try await Harness(configure: Self.configure)
        try await h.run { c in
            let authenticator = SoftwareAuthenticator(key: .es256(P256.Signing.PrivateKey()))
            let uid = try await Self.enrolled(h, c, authenticator)
            let body = try await Self.assertion(c, authenticator, signCount: 5)
            let writes = SignInWrites()
            try await h.store.pool.write { db in db.add(transactionObserver: writes) }

            let signedIn = try await Self.finalize(c, body)
            #expect(signedIn.status == 200, "\(signedIn.json)")
            #expect(writes.commits == 1)
            let user = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
            #expect(user.passkeys.map(\.signCount) == [5])
            #expect(user.lastLoginAt?.millisecondsSince1970 == h.clock.authClock.now().millisecondsSince1970)
            #expect(try await h.store.sessions(projectID: h.projectID, uid: uid).count == 2)

            let replayed = try await Self.finalize(c, body)
            #expect(replayed.status == 400 && replayed.errorCode == "PASSKEY_CHALLENGE_TIMEOUT")
            #expect(writes.commits == 1)
        }
    }

    @Test func aBlockedSignInAsksTheFunctionFirstAndStoresOnlyTheUsedChallengeAndTheCounter() async throws {
        let calls = Mutex((count: 0, block: false))
        let router = Router()
        router.post("/fn") { _, _ -> Response in
            let block = calls.withLock { s in
                s.count += 1
                return s.block
            }
            let answer: JSONValue =
                block ? ["error": ["status": "PERMISSION_DENIED", "message": "Blocked by policy"]] : [:]
            return Response(
                status: block ? .forbidden : .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: answer.jsonText)))
        }
        try await serveOnLoopback(router) { base in
            let h = try await Harness {
                Self.configure(&$0)
                $0.blockingFunctions.triggers["beforeSignIn"] = "\(base)/fn"
            }
            try await h.run { c in
                let authenticator = SoftwareAuthenticator(key: .es256(P256.Signing.PrivateKey()))
                let uid = try await Self.enrolled(h, c, authenticator)
                let before = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
                let body = try await Self.assertion(c, authenticator, signCount: 5)
                let writes = SignInWrites()
                try await h.store.pool.write { db in db.add(transactionObserver: writes) }
                let asked = calls.withLock { s in
                    s.block = true
                    return s.count
                }

                let blocked = try await Self.finalize(c, body)
                #expect(blocked.status == 400 && blocked.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
                #expect(calls.withLock { $0.count } == asked + 1)
                #expect(writes.commits == 1)
                let after = try #require(try await h.store.user(projectID: h.projectID, uid: uid))
                #expect(after.passkeys.map(\.signCount) == [5], "the authenticator moved its counter")
                #expect(after.lastLoginAt == before.lastLoginAt)
                #expect(try await h.store.sessions(projectID: h.projectID, uid: uid).count == 1)

                // Its challenge is used up: the same assertion again is refused before the function is asked.
                let replayed = try await Self.finalize(c, body)
                #expect(replayed.status == 400 && replayed.errorCode == "PASSKEY_CHALLENGE_TIMEOUT")
                #expect(calls.withLock { $0.count } == asked + 1)
                #expect(writes.commits == 1)
            }
        }
    }
}
