import Foundation
import HearthCore
import HearthEngine
import Testing

/// `firebase auth:export` files as `hearth users import|export` read and write them.
@Suite("User export files")
struct UserExportFormatTests {
    static let users = [
        UserRecord(
            projectID: "p", uid: "u1", email: "ada@example.com", emailVerified: true, displayName: "Ada, \"the\" first",
            phoneNumber: "+16505550101",
            passwordHash:
                "$firebase-scrypt$rounds=8,mem=14$TmFDbA$Bw$jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA$V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw",
            validSince: Date(millisecondsSince1970: 1_000), createdAt: Date(millisecondsSince1970: 1_500_000_000_000),
            lastLoginAt: Date(millisecondsSince1970: 1_600_000_000_000), customClaims: #"{"role":"admin"}"#,
            providers: [ProviderUserInfo(providerID: "apple.com", rawID: "a-1", email: "x@privaterelay.appleid.com")]),
        UserRecord(
            projectID: "p", uid: "u2", validSince: Date(), disabled: true, createdAt: Date(millisecondsSince1970: 7)),
    ]

    @Test(arguments: UserExportFormat.allCases)
    func whatIsExportedReadsBackTheSame(_ format: UserExportFormat) throws {
        let read = try format.read(format.write(Self.users))
        #expect(read.count == 2)
        let ada = read[0]
        #expect(ada.localID == "u1" && ada.email == "ada@example.com" && ada.emailVerified)
        #expect(ada.displayName == "Ada, \"the\" first")
        #expect(ada.phoneNumber == "+16505550101")
        #expect(ada.salt == Array("NaCl".utf8))
        #expect(ada.passwordHash?.count == 64)
        #expect(ada.customAttributes == #"{"role":"admin"}"#)
        #expect(ada.createdAt == Date(millisecondsSince1970: 1_500_000_000_000))
        #expect(ada.lastLoginAt == Date(millisecondsSince1970: 1_600_000_000_000))
        #expect(ada.providers.map(\.rawID) == ["a-1"])
        #expect(read[1].disabled && read[1].email == nil && read[1].passwordHash == nil)
        // Only JSON can carry the hash's parameters.
        #expect(ada.encodedPasswordHash == (format == .json ? Self.users[0].passwordHash : nil))
    }

    /// The streaming reader finds the same users as the whole-file reader, however the file is cut into chunks
    /// (strings with brackets, quotes and escapes across chunk edges), and refuses what the whole-file reader refuses.
    @Test func aStreamedExportReadsTheSameUsersInAnyChunkSize() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("users.json")
        var users = Self.users
        users[1].displayName = #"a \"}]{[ tricky\\ name"#
        var data = UserExportFormat.json.write(users)
        // Keys before and after the array are skipped, and a nested "users" key inside an entry is not the array.
        data = Data(#"{"kind":"x","extra":{"users":[1]},"#.utf8) + data.dropFirst().dropLast()
            + Data(#","after":[{"localId":"not-a-user"}]}"#.utf8)
        try data.write(to: file)
        let expected = try UserExportFormat.json.read(UserExportFormat.json.write(users)).map(\.localID)
        for chunk in [1, 2, 3, 7, 64, 1 << 20] {
            var stream = UserExportStream(path: file.path)
            stream.chunkSize = chunk
            var seen: [String?] = []
            var firsts: [Int] = []
            let count = try await stream.forEachBatch(of: 1) { batch, first in
                seen += batch.map(\.localID)
                firsts.append(first)
            }
            #expect(count == 2 && seen == expected && firsts == [0, 1], "chunk \(chunk): \(seen)")
            let names = try await { () async throws -> [String?] in
                var names: [String?] = []
                try await stream.forEachBatch(of: 5) { batch, _ in names += batch.map(\.displayName) }
                return names
            }()
            #expect(names == users.map(\.displayName), "chunk \(chunk)")
        }
        for bad in [#"{"users":[{"localId":"x"}"#, #"{"users":["x"]}"#, #"{"people":[]}"#, #"[{"localId":"x"}]"#,
                    #"{"users":[{"localId":"x","createdAt":"soon"}]}"#] {
            try Data(bad.utf8).write(to: file)
            await #expect(throws: UserExportFormat.FileError.self, "\(bad)") {
                try await UserExportStream(path: file.path).forEachBatch(of: 10) { _, _ in }
            }
        }
    }

    /// Batches are parsed in parallel but arrive in file order, and a bad entry stops the stream after every batch
    /// before it has arrived, as when entries were parsed one at a time.
    @Test func parallelParsingKeepsFileOrderAndErrorPosition() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("users.json")
        let entries = (0..<200).map { #"{"localId":"u\#($0)"}"# }
        try Data(#"{"users":[\#(entries.joined(separator: ","))]}"#.utf8).write(to: file)
        var stream = UserExportStream(path: file.path)
        stream.chunkSize = 97
        var seen: [String?] = []
        var firsts: [Int] = []
        let count = try await stream.forEachBatch(of: 7) { batch, first in
            seen += batch.map(\.localID)
            firsts.append(first)
        }
        #expect(count == 200 && seen == (0..<200).map { "u\($0)" })
        #expect(firsts == Array(stride(from: 0, to: 200, by: 7)))

        var broken = entries
        broken[150] = #"{"localId":"u150","createdAt":"soon"}"#
        try Data(#"{"users":[\#(broken.joined(separator: ","))]}"#.utf8).write(to: file)
        var delivered = 0
        await #expect(throws: UserExportFormat.FileError.self) {
            try await stream.forEachBatch(of: 7) { batch, _ in delivered += batch.count }
        }
        #expect(delivered == 147, "the 21 whole batches before users[150]")
    }

    @Test func firebaseCSVColumnsAreReadWhereFirebaseToolsPutsThem() throws {
        var columns = Array(repeating: "", count: 28)
        columns[0] = "uid-9"
        columns[1] = "g@example.com"
        columns[2] = "true"
        columns[3] = "aGFzaA=="
        columns[4] = "c2FsdA=="
        columns[7] = "google-sub"
        columns[23] = "1500000000000"
        columns[25] = "+447700900123"
        columns[27] = "\"{\"\"a\"\":1}\""
        let user = try #require(
            try UserExportFormat.csv.read(Data((columns.joined(separator: ",") + "\r\n").utf8)).first)
        #expect(user.localID == "uid-9" && user.passwordHash == Array("hash".utf8) && user.salt == Array("salt".utf8))
        #expect(user.providers.first?.providerID == "google.com" && user.providers.first?.rawID == "google-sub")
        #expect(user.phoneNumber == "+447700900123")
        #expect(user.customAttributes == #"{"a":1}"#)
    }

    @Test(arguments: [
        (UserExportFormat.json, #"{"users":[{"localId":"a","createdAt":"yesterday"}]}"#),
        (.json, #"{"accounts":[]}"#),
        (.json, #"{"users":[1]}"#),
        (.csv, "a,b\n"),
        (.csv, "a,b,c,d,e,f,\"unterminated\n"),
        (.csv, "u,e,false,***,,,\n"),
    ])
    func malformedFilesAreRefusedWhole(_ format: UserExportFormat, _ text: String) {
        #expect(throws: UserExportFormat.FileError.self) { try format.read(Data(text.utf8)) }
    }
}

@Suite("hearth users and service-accounts commands", .serialized)
struct UserCommandTests {
    func hearth(_ args: [String], dir: URL, expectStatus: Int32 = 0) async throws -> String {
        let (status, text) = try await runHearth(args, dataDir: dir)
        #expect(status == expectStatus, "\(args): \(text)")
        return text
    }

    @Test func importReportsSkippedUsersExportRoundTripsAndABadFileImportsNothing() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("firebase.json")
        try Data(
            #"""
            {"users":[
             {"localId":"u1","email":"ada@example.com","emailVerified":true,"passwordHash":"V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw==","salt":"TmFDbA==",
              "mfaInfo":[{"mfaEnrollmentId":"ph-1","phoneInfo":"+16505550102","displayName":"desk","enrolledAt":"2024-05-01T10:00:00Z"}]},
             {"localId":"u2","email":"ADA@example.com"},
             {"localId":"u3","phoneNumber":"+16505550101"}
            ]}
            """#.utf8
        ).write(to: source)
        let hashFlags = [
            "--hash-algo", "SCRYPT", "--hash-key",
            "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
            "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14",
        ]
        let first = dir.appendingPathComponent("a")
        let imported = try await hearth(["users", "import", source.path] + hashFlags, dir: first, expectStatus: 1)
        #expect(imported.contains("imported 2 of 3 users"))
        #expect(imported.contains("1 × email exists in other account in database: u2"))
        // The whole import is one audit event by the CLI, with its counts and no hash or salt.
        let events = try await hearth(["audit", "export"], dir: first).split(separator: "\n")
            .filter { $0.hasPrefix("{") }.map { try JSONValue(parsing: String($0)) }.filter { $0["action"]?.stringValue == "user.import" }
        #expect(events.count == 1)
        #expect(events.first?["actor"]?.stringValue == "cli" && events.first?["actorKind"]?.stringValue == "cli")
        #expect(events.first?["diff"]?["after"]?["imported"]?.doubleValue == 2)
        #expect(events.first?["diff"]?["after"]?["failed"]?.doubleValue == 1)
        #expect(!events.description.contains("V358E8") && !events.description.contains("TmFDbA"))

        let export = dir.appendingPathComponent("out.json")
        let exported = try await hearth(["users", "export", export.path], dir: first)
        #expect(exported.contains("exported 2 users"))
        #expect(exported.contains("--hash-algo=SCRYPT"))

        // Hearth's own JSON export needs no hash flags.
        let second = dir.appendingPathComponent("b")
        #expect(try await hearth(["users", "import", export.path], dir: second).contains("imported 2 of 2 users"))
        let u1 = try await hearth(["users", "get", "ada@example.com"], dir: second)
        #expect(u1.contains(#""hearthPasswordHash":"$firebase-scrypt$rounds=8,mem=14$TmFDbA$Bw$"#))
        // Second factors survive import, export and import again.
        #expect(u1.contains(#""mfaEnrollmentId":"ph-1""#) && u1.contains(#""phoneInfo":"+16505550102""#))
        #expect(u1.contains(#""enrolledAt":"2024-05-01T10:00:00.000Z""#))

        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"users":[{"localId":"x1"},{"localId":"x2","createdAt":"soon"}]}"#.utf8).write(to: bad)
        let refused = try await hearth(["users", "import", bad.path], dir: second, expectStatus: 1)
        #expect(refused.contains("nothing imported"))
        #expect(try await hearth(["users", "get", "x1"], dir: second, expectStatus: 1).contains("no user x1"))
        #expect(
            try await hearth(["users", "import", source.path, "--hash-algo", "SCRYPT"], dir: second, expectStatus: 64)
                .contains("hash flags"))
    }

    @Test func serviceAccountKeysAreCreatedListedAndRevoked() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("sa.json")
        let created = try await hearth(["service-accounts", "create", "--out", file.path, "--project", "p1"], dir: dir)
        #expect(created.contains("created key"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let json = try JSONValue.parse([UInt8](Data(contentsOf: file)))
        #expect(json["type"]?.stringValue == "service_account" && json["project_id"]?.stringValue == "p1")
        #expect(json["private_key"]?.stringValue?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        let keyID = try #require(json["private_key_id"]?.stringValue)
        #expect(
            try await hearth(["service-accounts", "create", "--out", file.path], dir: dir, expectStatus: 1).contains("exists")
        )

        #expect(try await hearth(["service-accounts", "list"], dir: dir).contains("\(keyID)  p1"))
        #expect(try await hearth(["service-accounts", "revoke", keyID], dir: dir).contains("revoked"))
        #expect(try await hearth(["service-accounts", "list"], dir: dir).contains("revoked"))
        #expect(try await hearth(["service-accounts", "revoke", keyID], dir: dir, expectStatus: 1).contains("no active key"))
    }
}
