import Foundation
import HearthCore

/// Reads the users of a `firebase auth:export` JSON file one at a time, in chunks, so importing a file of a
/// million users holds one chunk and one batch in memory instead of the whole file and every user.
///
/// The file is split on its structure without building it: the elements of the top-level object's `"users"`
/// array are cut out by bracket depth (strings and their escapes skipped), and each is parsed on its own with
/// `JSONValue.parse`, so an element is held whole but the file never is. Anything else at the top level is
/// skipped. Malformed JSON is an error naming the user's position; the caller decides whether anything imports.
public struct UserExportStream: Sendable {
    public let path: String
    /// Bytes read at a time.
    public var chunkSize = 1 << 20

    public init(path: String) {
        self.path = path
    }

    /// Calls `body` with the users in file order, `batchSize` at a time (the last batch may be shorter), with the
    /// position of the batch's first user; returns how many users the file has.
    ///
    /// Cutting entries out is cheap and sequential; parsing them is not, so batches are parsed on up to
    /// `parallelism` tasks while `body` handles earlier ones, and still delivered in order. Errors come in file
    /// order too: every batch before a bad entry or a malformed stretch reaches `body` first.
    @discardableResult
    public func forEachBatch(
        of batchSize: Int, _ body: (_ users: [ImportedUser], _ firstIndex: Int) async throws -> Void
    ) async throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw UserExportFormat.FileError(description: "cannot read \(path)")
        }
        defer { try? handle.close() }
        var splitter = Splitter()
        var entries: [[UInt8]] = []
        entries.reserveCapacity(batchSize)
        var count = 0
        var delivered = 0
        var parsing: [Task<[ImportedUser], any Error>] = []
        defer { for task in parsing { task.cancel() } }
        func parse(_ entries: [[UInt8]], first: Int) -> Task<[ImportedUser], any Error> {
            Task { try entries.enumerated().map { try Self.user($1, index: first + $0) } }
        }
        func deliverOldest() async throws {
            let users = try await parsing.removeFirst().value
            try await body(users, delivered)
            delivered += users.count
        }
        // A read or structure error waits until what came before it has gone through, as if entries were parsed
        // one at a time; an entry's own error or one of `body`'s goes straight out.
        var streamError: (any Error)?
        reading: while true {
            var cut: [[UInt8]] = []
            do {
                let chunk = try handle.read(upToCount: chunkSize) ?? Data()
                if chunk.isEmpty {
                    try splitter.finish()
                    break reading
                }
                try chunk.withUnsafeBytes { try splitter.feed($0.bindMemory(to: UInt8.self)) { cut.append($0) } }
            } catch {
                streamError = error
            }
            for entry in cut {
                entries.append(entry)
                count += 1
                guard entries.count == batchSize else { continue }
                parsing.append(parse(entries, first: count - entries.count))
                entries.removeAll(keepingCapacity: true)
                if parsing.count > Self.parallelism { try await deliverOldest() }
            }
            if let streamError {
                while !parsing.isEmpty { try await deliverOldest() }
                _ = try await parse(entries, first: count - entries.count).value
                throw streamError
            }
        }
        if !entries.isEmpty { parsing.append(parse(entries, first: count - entries.count)) }
        while !parsing.isEmpty { try await deliverOldest() }
        return count
    }

    /// Batches parsed at once besides the one being delivered.
    static let parallelism = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 4)

    static func user(_ bytes: [UInt8], index: Int) throws -> ImportedUser {
        let entry: JSONValue
        do { entry = try JSONValue.parse(bytes) } catch {
            throw UserExportFormat.FileError(description: "users[\(index)]: not valid JSON: \(error)")
        }
        return try UserExportFormat.importedUser(entry, index: index)
    }

    /// Finds the elements of the top-level `"users"` array in a byte stream fed piece by piece.
    struct Splitter {
        private var depth = 0
        private var inString = false
        private var escaped = false
        /// The last string completed directly in the top-level object (a key, or a value).
        private var lastTopLevelString: [UInt8] = []
        private var collectingTopLevelString = false
        /// Inside the top-level `"users"` array.
        private var inUsers = false
        private var sawUsers = false
        private var element: [UInt8] = []
        private var inElement = false
        private var started = false

        static let users = Array("users".utf8)

        mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: ([UInt8]) throws -> Void) throws {
            var elementStart = inElement ? 0 : -1
            for (i, byte) in bytes.enumerated() {
                if inString {
                    if collectingTopLevelString && !(byte == UInt8(ascii: "\"") && !escaped) {
                        lastTopLevelString.append(byte)
                    }
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        collectingTopLevelString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    if depth == 2 && inUsers && !inElement {
                        throw UserExportFormat.FileError(description: "an entry of users is not an object")
                    }
                    inString = true
                    if depth == 1 {
                        collectingTopLevelString = true
                        lastTopLevelString.removeAll(keepingCapacity: true)
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if depth == 0 {
                        guard byte == UInt8(ascii: "{") else { throw Self.notAnExport }
                        started = true
                    } else if depth == 1 && byte == UInt8(ascii: "[") && lastTopLevelString == Self.users {
                        inUsers = true
                        sawUsers = true
                    } else if depth == 2 && inUsers {
                        inElement = true
                        elementStart = i
                    }
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth < 0 { throw Self.malformed }
                    if depth == 2 && inElement {
                        element.append(contentsOf: bytes[elementStart...i])
                        try emit(element)
                        element.removeAll(keepingCapacity: true)
                        inElement = false
                        elementStart = -1
                    } else if depth == 1 && inUsers {
                        inUsers = false
                    }
                default:
                    // A scalar element of the users array (not an object) is refused like any other bad entry.
                    if depth == 2 && inUsers && !inElement && !Self.isSeparator(byte) {
                        throw UserExportFormat.FileError(description: "an entry of users is not an object")
                    }
                }
            }
            if inElement, elementStart >= 0 { element.append(contentsOf: bytes[elementStart...]) }
        }

        func finish() throws {
            guard started, depth == 0, !inString else { throw Self.malformed }
            guard sawUsers else { throw Self.notAnExport }
        }

        static func isSeparator(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
        }

        static let malformed = UserExportFormat.FileError(
            description: "not valid JSON: unbalanced brackets or an unterminated string")
        static let notAnExport = UserExportFormat.FileError(
            description: #"expected an object with a "users" array, as firebase auth:export writes"#)
    }
}
