/// Helpers both store implementations share, so they agree on every derived value.
public enum StoreSupport {
    /// The least string greater than every string that starts with `prefix` (byte order), for range scans:
    /// `"p/tenants/"` → `"p/tenants0"`. The prefix must end in an ASCII character below DEL.
    public static func prefixEnd(_ prefix: String) -> String {
        var bytes = Array(prefix.utf8)
        precondition(bytes.last.map { $0 < 0x7F } ?? false, "a prefix ends in ASCII")
        bytes[bytes.count - 1] += 1
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Start of the fixed window that contains `nowMs`.
    public static func windowStart(nowMs: Int64, windowSeconds: Int) -> Int64 {
        let w = Int64(max(windowSeconds, 1)) * 1000
        return nowMs - (nowMs % w)
    }
}
