/// Cost parameters of Hearth's native password hash. Stored beside each hash so they can be
/// raised later: a hash made with weaker parameters is upgraded on the next successful sign-in.
public struct ScryptParameters: Sendable, Equatable, Codable {
    /// log2 of the CPU/memory cost N.
    public var logN: Int
    /// Block size r.
    public var r: Int
    /// Parallelism p.
    public var p: Int

    public init(logN: Int = 14, r: Int = 8, p: Int = 1) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// 2^14 × 8 × 128 B = 16 MiB and roughly 30–60 ms on one core: OWASP's scrypt floor is 2^17 with r=8 only
    /// when p=1 is paired with a memory budget Hearth cannot assume; 2^14 is Firebase's own choice.
    public static let `default` = ScryptParameters()

    /// r is capped at 16: beyond that swift-crypto's scrypt refuses the memory it would need.
    public var isSane: Bool { (10...20).contains(logN) && (1...16).contains(r) && (1...16).contains(p) }

    /// Bytes of memory one hash needs (128 · N · r).
    public var memoryBytes: Int { 128 * (1 << logN) * r }
}
