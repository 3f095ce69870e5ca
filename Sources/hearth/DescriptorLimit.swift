#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// The process's open-file limit, and how many connections fit under it.
enum DescriptorLimit {
    /// Descriptors kept free for everything that is not a client connection: the database and its WAL, pooled
    /// PostgreSQL connections, outbound HTTP to identity and SMS providers, logs. Running out of them at the wrong
    /// moment is worse than a client waiting in the accept queue.
    static let reserve = 128

    /// Raises the soft limit to the hard limit where allowed, then caps `wanted` connections to fit below it.
    static func connectionCap(wanted: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = Int(clamping: limit.rlim_cur)  // RLIM_INFINITY is the largest value: no cap
        let cap = max(1, min(wanted, available - reserve))
        if cap < wanted {
            logger.warning(
                "at most \(cap) connections at once: the open-file limit is \(available) (raise it with ulimit -n or LimitNOFILE)"
            )
        }
        return cap
    }
}
