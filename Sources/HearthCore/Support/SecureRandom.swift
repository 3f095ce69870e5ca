import Crypto
import Foundation
import Synchronization

/// Randomness for identifiers, salts and tokens. `system` draws from the OS CSPRNG;
/// tests may inject a seeded source to make ids predictable.
public struct SecureRandom: Sendable {
    private let fill: @Sendable (Int) -> [UInt8]

    public init(fill: @escaping @Sendable (Int) -> [UInt8]) {
        self.fill = fill
    }

    public static let system = SecureRandom { count in
        // Eight bytes per draw from the OS generator, not one.
        var generator = SystemRandomNumberGenerator()
        var out = [UInt8]()
        out.reserveCapacity(count + 7)
        while out.count < count {
            withUnsafeBytes(of: generator.next()) { out.append(contentsOf: $0) }
        }
        out.removeLast(out.count - count)
        return out
    }

    public func bytes(_ count: Int) -> [UInt8] { fill(count) }

    private static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// A 28-character alphanumeric id, the shape of Firebase uids.
    public func uid() -> String { alphanumeric(28) }

    /// Alphanumeric text of the given length, without modulo bias.
    public func alphanumeric(_ length: Int) -> String {
        var out = ""
        out.reserveCapacity(length)
        while out.count < length {
            for byte in bytes(length * 2) where byte < 248 {  // 248 = 4 * 62
                out.append(Self.alphanumerics[Int(byte) % 62])
                if out.count == length { break }
            }
        }
        return out
    }

    /// Random bytes as base64url text: `count` bytes of entropy.
    public func token(bytes count: Int) -> String { Base64URL.encode(bytes(count)) }

    /// An id that sorts by when it was made: a process-wide sequence of microseconds (never repeating, never going
    /// back within a process) as 16 hex digits, then `count` random bytes as base64url, which keep processes apart.
    /// Rows keyed by it are inserted at the end of their B-trees, so the rows of one batch share pages.
    public func timeOrderedID(randomBytes count: Int) -> String {
        let micros = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        let sequence = Self.lastSequence.withLock { last in
            last = max(last + 1, micros)
            return last
        }
        let hex = String(sequence, radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex + token(bytes: count)
    }

    private static let lastSequence = Mutex<UInt64>(0)
}
