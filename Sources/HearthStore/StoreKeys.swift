/// Helpers both store implementations share, so they agree on every derived value.
public enum StoreSupport {
    /// Start of the fixed window that contains `nowMs`.
    public static func windowStart(nowMs: Int64, windowSeconds: Int) -> Int64 {
        let w = Int64(max(windowSeconds, 1)) * 1000
        return nowMs - (nowMs % w)
    }
}
