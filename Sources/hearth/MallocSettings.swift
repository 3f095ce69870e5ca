import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for the server process.
enum MallocSettings {
    /// Keeps blocks of `threshold` bytes and more in their own mappings, returned to the system when freed.
    ///
    /// Every scrypt hash allocates a 16 MiB working buffer (128·N·r bytes) inside BoringSSL. glibc serves the first
    /// from mmap, then raises its mmap threshold to that size, so later ones come from the hashing threads' arenas
    /// and stay resident after a burst of sign-ins (+32 MiB with two hashing threads, never given back: `malloc_trim`
    /// does not trim the top of a thread's arena). A fixed threshold turns the dynamic adjustment off. The price is
    /// the page faults of a fresh 16 MiB buffer per hash, about a tenth of a hash's time.
    static func releaseLargeBlocksWhenFreed(threshold: Int32 = 4 << 20) {
        #if canImport(Glibc)
            // mallopt lives in malloc.h, which the Glibc module does not export. RTLD_DEFAULT is the null handle.
            guard let symbol = dlsym(nil, "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            let mMmapThreshold: Int32 = -3
            _ = mallopt(mMmapThreshold, threshold)
        #endif
    }
}
