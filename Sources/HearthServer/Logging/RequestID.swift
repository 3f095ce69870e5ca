import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The id of the request a task is serving, put on every log line written while serving it (by the engine,
/// the store, anything) through the logging system's metadata provider, and returned as `X-Request-Id`.
public enum RequestID {
    @TaskLocal public static var current: String?

    public static let header = HTTPField.Name("X-Request-Id")!

    /// Adds `request` to every log line written inside a request's task.
    public static let metadataProvider = Logger.MetadataProvider {
        current.map { ["request": .string($0)] } ?? [:]
    }

    /// An id a proxy or client sent, if it is short and plain enough to put in a log line unquoted; otherwise a
    /// new one (so a client cannot forge line breaks or other requests' ids into the log).
    static func accept(_ sent: String?) -> String {
        if let sent, (1...64).contains(sent.utf8.count),
            sent.utf8.allSatisfy({ $0.isPlainIDByte })
        {
            return sent
        }
        return make()
    }

    /// 16 hex digits, unique in this process: a random start, then each id the next of a permutation of 64-bit
    /// numbers (an odd multiplier), so ids do not read as a counter. No system call per request, as drawing each
    /// from the system's random source would be; the id identifies log lines and is no secret.
    static func make() -> String {
        let n = next.add(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        // Written digit by digit: `String(_:radix:)` and the padding cost ~1.5k instructions a request.
        return String(unsafeUninitializedCapacity: 16) { digits in
            for i in 0..<16 { digits[i] = hexDigits[Int(truncatingIfNeeded: n >> (60 - 4 * UInt64(i))) & 0xF] }
            return 16
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static let next = Atomic<UInt64>(UInt64.random(in: .min ... .max))
}

extension UInt8 {
    fileprivate var isPlainIDByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == 0x2D || self == 0x2E || self == 0x5F || self == 0x3A
    }
}
