import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for the server process.
///
/// Every scrypt hash allocates a 16 MiB working buffer (128·N·r bytes) inside BoringSSL. glibc serves the first from
/// mmap, then raises its mmap threshold to that size, so later ones are reused from the heap: no page faults for a
/// fresh buffer per hash, which is about a tenth of a hash's time. But a buffer freed in a hashing thread's own
/// arena stays resident for good (`malloc_trim` does not trim the top of a thread's arena): +32 MiB with two
/// hashing threads after a burst of sign-ins. With one arena for the process, the buffers come from the main heap,
/// which `malloc_trim` does return, and the password hasher calls `releaseFreeMemory` whenever its queue runs dry:
/// reuse during a burst, memory back after it.
enum MallocSettings {
    /// One malloc arena for every thread (`M_ARENA_MAX` 1). Paired runs measured no cost to lookups or refreshes,
    /// and sign-ins 41–43 → 49–53/s (the buffers reused); it does slow the importer's parallel parsing.
    static func shareOneArena() {
        _ = mallopt(-8, 1)  // M_ARENA_MAX
    }

    /// Gives free heap memory back to the system (`malloc_trim(0)`).
    static func releaseFreeMemory() {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
            _ = trim(0)
        #endif
    }

    /// mallopt lives in malloc.h, which the Glibc module does not export. RTLD_DEFAULT is the null handle.
    private static func mallopt(_ parameter: Int32, _ value: Int32) -> Int32 {
        #if canImport(Glibc)
            guard let symbol = dlsym(nil, "mallopt") else { return 0 }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            return mallopt(parameter, value)
        #else
            return 0
        #endif
    }
}
