import ArgumentParser
import Foundation
import HearthCore
import HearthEngine

struct UsersImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import users from a `firebase auth:export` file (JSON or CSV) with their password hashes.",
        discussion: """
            The hash flags are those of `firebase auth:import`; for Firebase's own SCRYPT take them from the \
            console (Authentication → Users → ⋮ → Password hash parameters). Hashes are stored as they are, \
            never rehashed; each user's first successful sign-in upgrades theirs to Hearth's native scrypt. \
            Files written by `hearth users export` (JSON) carry every hash's parameters and need no hash flags.

            The whole file is read and checked first: a malformed file imports nothing. A JSON file is then read \
            again as it is imported, never held whole in memory. Users that cannot be imported (an e-mail taken \
            by another user, a bad hash…) are skipped and listed at the end.
            """)
    @OptionGroup var options: ConfigurationOptions

    @Argument(help: "The export file.") var file: String
    @Option(help: "json or csv (default: from the file name).") var format: UserExportFormat?
    @Option(help: "Import into this tenant of the project (Identity Platform multi-tenancy).") var tenant: String?
    @Option(
        help:
            "SCRYPT, STANDARD_SCRYPT, BCRYPT, PBKDF_SHA1, PBKDF2_SHA256, HMAC_SHA512/256/SHA1/MD5, MD5, SHA1, SHA256, SHA512."
    )
    var hashAlgo: String?
    @Option(help: "Base64 key: SCRYPT's signer key, HMAC_*'s key.") var hashKey: String?
    @Option(help: "Base64 salt separator (SCRYPT).") var saltSeparator: String?
    @Option(help: "Rounds (SCRYPT: 1–8; PBKDF*, MD5, SHA*: iterations).") var rounds: Int?
    @Option(help: "Memory cost (SCRYPT: 1–14; STANDARD_SCRYPT: N, a power of two).") var memCost: Int?
    @Option(help: "STANDARD_SCRYPT p.") var parallelization: Int?
    @Option(help: "STANDARD_SCRYPT r.") var blockSize: Int?
    @Option(help: "STANDARD_SCRYPT derived key length.") var dkLen: Int?
    @Option(help: "SALT_FIRST or PASSWORD_FIRST (HMAC_*, MD5, SHA*).") var hashInputOrder: String?
    @Flag(help: "Replace existing users with the same uid instead of skipping them.") var allowOverwrite = false
    @Option(help: "Users per transaction (1–1000).") var batchSize = 1000

    /// The file's users, a batch at a time: a JSON export is streamed (one chunk and one batch in memory, read
    /// again on each call); CSV is read whole once.
    func usersSource() throws -> (Int, ([ImportedUser], Int) async throws -> Void) async throws -> Int {
        let format = self.format ?? UserExportFormat.guess(path: file)
        if format == .json {
            let stream = UserExportStream(path: file)
            return { batchSize, body in try await stream.forEachBatch(of: batchSize, body) }
        }
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        let users: [ImportedUser]
        do { users = try format.read(data) } catch { throw CommandFailure("\(file): \(error); nothing imported") }
        return { batchSize, body in
            for first in stride(from: 0, to: users.count, by: batchSize) {
                try await body(Array(users[first..<min(first + batchSize, users.count)]), first)
            }
            return users.count
        }
    }

    func hashSettings() throws -> PasswordHashImport? {
        guard let name = hashAlgo else { return nil }
        guard let algorithm = PasswordHashImport.Algorithm(rawValue: name.uppercased()) else {
            throw ValidationError(
                "unknown --hash-algo \(name); one of \(PasswordHashImport.Algorithm.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        func bytes(_ flag: String, _ text: String?) throws -> [UInt8] {
            guard let text else { return [] }
            guard let b = Base64.decode(text) else {
                throw ValidationError("--\(flag) is not base64")
            }
            return b
        }
        var order: SaltOrder?
        if let text = hashInputOrder {
            switch text.uppercased() {
            case "SALT_FIRST": order = .saltFirst
            case "PASSWORD_FIRST": order = .passwordFirst
            default: throw ValidationError("--hash-input-order must be SALT_FIRST or PASSWORD_FIRST")
            }
        }
        let standard = algorithm == .standardScrypt
        let settings = PasswordHashImport(
            algorithm: algorithm, signerKey: try bytes("hash-key", hashKey),
            saltSeparator: try bytes("salt-separator", saltSeparator), rounds: rounds ?? 0,
            memoryCost: standard ? 0 : memCost ?? 0, cpuMemCost: standard ? memCost ?? 0 : 0, blockSize: blockSize ?? 0,
            parallelization: parallelization ?? 0, derivedKeyLength: dkLen ?? 0, order: order)
        do { try settings.validate() } catch { throw ValidationError("hash flags: \(error.detail ?? error.message)") }
        return settings
    }

    func run() async throws {
        guard (1...AuthEngine.maxBatchSize).contains(batchSize) else {
            throw ValidationError("--batch-size must be 1–1000")
        }
        let hash = try hashSettings()
        let source = try usersSource()
        // First pass: every entry is read and checked, so a malformed file imports nothing.
        let total: Int
        do {
            total = try await source(batchSize) { users, first in
                if hash == nil,
                    let index = users.firstIndex(where: { $0.passwordHash != nil && $0.encodedPasswordHash == nil })
                {
                    throw CommandFailure(
                        "\(file): user \(users[index].localID ?? "#\(first + index)") has a password hash; give --hash-algo and its parameters; nothing imported"
                    )
                }
            }
        } catch let error as UserExportFormat.FileError {
            throw CommandFailure("\(file): \(error); nothing imported")
        }
        let configuration = try options.resolve()
        let store = try await Runtime.openStore(configuration, logger: Runtime.logger(configuration))
        let importer = UserImporter(store: store)
        let projectID = TenantScope.key(project: configuration.defaultProject, tenant: tenant)
        // The whole import is one audit event by `cli`, however many batches it took.
        func audit(imported: Int, failed: Int, error: (any Error)?) async {
            await AuditActor.$current.withValue(AuditActor(kind: .cli, id: "cli", clientAddress: nil)) {
                await importer.recordImport(projectID: projectID, imported: imported, failed: failed, error: error)
            }
        }
        var progress = ProgressBar(total: total, label: "users")
        var failures: [(uid: String, message: String)] = []
        let started = Date()
        var done = 0
        // Second pass: one batch is written while the next is read and parsed.
        var writing: (task: Task<[UserImportError], any Error>, users: [ImportedUser], first: Int)?
        func finishWriting() async throws {
            guard let (task, users, first) = writing else { return }
            writing = nil
            failures += try await task.value.map { (users[$0.index].localID ?? "#\(first + $0.index)", $0.message) }
            done += users.count
            progress.update(done)
        }
        do {
            _ = try await source(batchSize) { [allowOverwrite] users, first in
                try await finishWriting()
                let request = UserImportRequest(users: users, hash: hash, allowOverwrite: allowOverwrite)
                writing = (Task { try await importer.importBatch(request, projectID: projectID) }, users, first)
            }
            try await finishWriting()
        } catch {
            _ = try? await writing?.task.value
            await audit(imported: done - failures.count, failed: failures.count, error: error)
            try await store.shutdown()
            throw CommandFailure("import stopped after \(done) users: \((error as? AuthError)?.message ?? "\(error)")")
        }
        await audit(imported: total - failures.count, failed: failures.count, error: nil)
        try await store.shutdown()
        let seconds = Date().timeIntervalSince(started)
        print(
            "imported \(total - failures.count) of \(total) users into \(configuration.defaultProject) in \(String(format: "%.1f", seconds)) s (\(Int(Double(total) / max(seconds, 0.001))) users/s)"
        )
        guard !failures.isEmpty else { return }
        print("\(failures.count) not imported:")
        for (message, group) in Dictionary(grouping: failures, by: \.message).sorted(by: {
            $0.value.count > $1.value.count
        }) {
            let sample = group.prefix(5).map(\.uid).joined(separator: ", ")
            print("  \(group.count) × \(message): \(sample)\(group.count > 5 ? ", …" : "")")
        }
        throw ExitCode(1)
    }
}

struct UsersExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every user to a file in `firebase auth:export`'s JSON or CSV format.",
        discussion: """
            JSON also carries each hash whole (hearthPasswordHash), so `hearth users import` restores any mix of \
            schemes. For other tools, the summary prints the hash flags each group of users needs.
            """)
    @OptionGroup var options: ConfigurationOptions
    @Argument(help: "The file to write (refuses to overwrite one).") var file: String
    @Option(help: "json or csv (default: from the file name).") var format: UserExportFormat?
    @Option(help: "Export this tenant's users instead of the project's own.") var tenant: String?

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(file) exists") }
        let configuration = try options.resolve()
        let store = try await Runtime.openStore(configuration, logger: Runtime.logger(configuration))
        let projectID = TenantScope.key(project: configuration.defaultProject, tenant: tenant)
        let total = try await store.countUsers(projectID: projectID)
        var progress = ProgressBar(total: total, label: "users")
        var users: [UserRecord] = []
        var after: String?
        while true {
            let page = try await store.users(projectID: projectID, afterUID: after, limit: 1000)
            users += page
            progress.update(min(users.count, total))
            guard page.count == 1000 else { break }
            after = page.last?.uid
        }
        try await store.shutdown()
        let fileFormat = format ?? UserExportFormat.guess(path: file)
        let created = FileManager.default.createFile(
            atPath: file, contents: fileFormat.write(users), attributes: [.posixPermissions: 0o600])
        guard created else { throw CommandFailure("could not write \(file)") }
        print("exported \(users.count) users of \(projectID) to \(file) (\(fileFormat.rawValue))")
        let schemes = Dictionary(
            grouping: users.compactMap { $0.passwordHash.flatMap(PasswordHash.init(encoded:))?.importFlags }, by: { $0 }
        )
        for (flags, group) in schemes.sorted(by: { $0.value.count > $1.value.count }) {
            print("  \(group.count) password hashes re-import with: \(flags)")
        }
    }
}

extension UserExportFormat: ExpressibleByArgument {}
