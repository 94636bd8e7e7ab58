#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for a process that decodes large images on several threads: the
/// command line applies them before any work, and a server embedding the library calls the same
/// once, first thing in `main` (the library never changes the process's allocator by itself).
///
///     MallocTuning.apply()   // first thing in main
///
/// Measured (Examples/concurrent-requests, 200 calls of a 12 MP JPEG, 50 at once, a 64 MB
/// admission budget, `make memory-check` case lib200-64): peak RSS 153 MB with glibc's defaults,
/// 117 MB with these.
///
/// - `M_ARENA_MAX` = 2: glibc gives each thread that meets a locked arena one of its own, up
///   to 8 per core, and memory freed in an arena stays with it. With decode frames of tens of
///   MB freed on one worker thread and wanted on another, RSS grows with the thread count: 500
///   photos peaked at 471 MB with glibc's arenas and 357 MB with two. Two keeps lock contention
///   low on the few CPU threads the pipeline runs (the hot paths allocate little per row).
/// - `M_MMAP_THRESHOLD` = 1 MiB, fixed: a block this large or larger comes from `mmap` and
///   goes back to the kernel on `free`, so a freed frame or body leaves RSS at once instead
///   of staying in an arena. Setting it also turns off glibc's dynamic threshold, which
///   otherwise rises to the largest block freed (up to 32 MB on 64-bit) and sends every
///   later frame of that size back to the arenas. 1 MiB is large enough that row buffers and
///   small bodies stay in the arenas (an mmap costs a syscall and page faults).
///
/// `PUSHATTACH_MALLOC_DEFAULTS=1` in the environment leaves glibc's defaults, to measure what
/// the settings do.
///
/// `mallopt` lives in `<malloc.h>`, which the Glibc module does not export: it is looked up
/// with `dlsym` and called through its C signature. The parameter numbers are glibc's ABI
/// (`malloc.h`: `M_MMAP_THRESHOLD` -3, `M_ARENA_MAX` -8). Not glibc (musl, Darwin): nothing.
public enum MallocTuning {
    /// `M_ARENA_MAX`.
    public static let arenaMax: Int32 = 2
    /// `M_MMAP_THRESHOLD`, in bytes.
    public static let mmapThreshold: Int32 = 1 << 20
    static let parameterMmapThreshold: Int32 = -3
    static let parameterArenaMax: Int32 = -8

    /// True when both settings were taken.
    @discardableResult
    public static func apply() -> Bool {
        #if canImport(Glibc)
            if getenv("PUSHATTACH_MALLOC_DEFAULTS").map({ String(cString: $0) }) == "1" { return false }
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(nil, "mallopt") else { return false }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            let arenas = mallopt(parameterArenaMax, arenaMax)
            let threshold = mallopt(parameterMmapThreshold, mmapThreshold)
            return arenas == 1 && threshold == 1
        #else
            return false
        #endif
    }
}
