import Foundation

// Seeds 000, 002 and 003 draw nonce bytes with Security's SecRandomCopyBytes, which Linux lacks.
// These stand-ins (CSPRNG-backed, same signature) let those snippets compile unchanged there.
#if !canImport(Security)
    let kSecRandomDefault: Int? = nil
    let errSecSuccess: Int32 = 0

    func SecRandomCopyBytes(_ generator: Int?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
        var rng = SystemRandomNumberGenerator()
        for i in 0..<count { bytes.storeBytes(of: rng.next() as UInt8, toByteOffset: i, as: UInt8.self) }
        return errSecSuccess
    }
#endif
