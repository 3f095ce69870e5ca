/// Comparison whose running time does not depend on where the inputs first differ.
public enum ConstantTime {
    /// Inlinable so that each caller gets it specialised to its collections: unspecialised, every byte went through
    /// the generic collection witnesses (about 11 µs for one 32-byte WebAuthn challenge, measured with perf).
    @inlinable
    public static func equals<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }
}
