#if canImport(Glibc)
    import Glibc
#endif

/// glibc malloc settings for a process that decodes large images on several threads: the
/// command line applies them before any work, and a server embedding the library calls the same
/// once, first thing in `main` (the library never changes the process's allocator by itself).
///
///     MallocTuning.apply()              // first thing in main: the lowest resident set
///     MallocTuning.apply(.lowLatency)   // a server: freed frames kept for the next request
///
/// Two profiles, one trade: whether a freed frame goes back to the kernel or stays for reuse.
///
/// - `.lowMemory` (the default; `prepare`, `verify` and the batch): `M_ARENA_MAX` 2 and
///   `M_MMAP_THRESHOLD` 1 MiB, fixed. Measured (Examples/concurrent-requests, 200 calls of a
///   12 MP JPEG, 50 at once, a 64 MB admission budget, `make memory-check` case lib200-64): peak
///   RSS 153 MB with glibc's defaults, 117 MB with these.
/// - `.lowLatency` (`serve`): `M_ARENA_MAX` 2, `M_MMAP_THRESHOLD` 32 MiB and `M_TRIM_THRESHOLD`
///   64 MiB, fixed. A frame (a 12 MP photo decoded at 1/2 is 12 MB) comes from an arena and
///   stays there when freed, so the next request writes into pages it already has instead of
///   faulting in fresh zeroed ones; an arena returns memory to the kernel once more than 64 MiB
///   is free at its top. Measured (`Benchmarks/serve/first_answer.py`, a 12 MP JPEG, one request
///   at a time): the first answer 53-55 ms against 60-62 ms with `.lowMemory`, where page faults
///   were 6 % of `serve`'s CPU. `serve` calls `releaseFreeMemory()` 10-15 s after its latest
///   preparation (`Benchmarks/serve/idle_memory.py`, 51 photos, 4 at a time): 179 MB right after
///   the burst, 154 MB once released, where `.lowMemory` stays at 160 MB.
///
/// Why each setting:
/// - `M_ARENA_MAX` = 2: glibc gives each thread that meets a locked arena one of its own, up
///   to 8 per core, and memory freed in an arena stays with it. With decode frames of tens of
///   MB freed on one worker thread and wanted on another, RSS grows with the thread count: 500
///   photos peaked at 471 MB with glibc's arenas and 357 MB with two. Two keeps lock contention
///   low on the few CPU threads the pipeline runs (the hot paths allocate little per row).
/// - `M_MMAP_THRESHOLD` = 1 MiB, fixed (`.lowMemory`): a block this large or larger comes from
///   `mmap` and goes back to the kernel on `free`, so a freed frame or body leaves RSS at once
///   instead of staying in an arena. Setting it also turns off glibc's dynamic threshold, which
///   otherwise rises to the largest block freed (up to 32 MB on 64-bit) and sends every
///   later frame of that size back to the arenas. 1 MiB is large enough that row buffers and
///   small bodies stay in the arenas (an mmap costs a syscall and page faults).
/// - `M_MMAP_THRESHOLD` = 32 MiB and `M_TRIM_THRESHOLD` = 64 MiB, fixed (`.lowLatency`): the
///   reverse choice: blocks under 32 MiB are reused, and an arena gives its top back once more
///   than 64 MiB there is free. Free blocks further down an arena stay until
///   `releaseFreeMemory()`: what the process keeps is bounded by its busiest moment (for a
///   preparer, its admission budget), not by these settings. A server on it calls
///   `releaseFreeMemory()` once it has gone idle (`serve`: 10-15 s after its latest preparation),
///   so what it kept goes back.
///
/// `PUSHATTACH_MALLOC_DEFAULTS=1` in the environment leaves glibc's defaults, to measure what
/// the settings do.
///
/// `mallopt` lives in `<malloc.h>`, which the Glibc module does not export: it is looked up
/// with `dlsym` and called through its C signature. The parameter numbers are glibc's ABI
/// (`malloc.h`: `M_TRIM_THRESHOLD` -1, `M_MMAP_THRESHOLD` -3, `M_ARENA_MAX` -8). Not glibc
/// (musl, Darwin): nothing.
public enum MallocTuning {
    /// Whether freed frames go back to the kernel or stay for reuse.
    public enum Profile: Sendable {
        /// Blocks of 1 MiB and more go back to the kernel when freed: the lowest resident set.
        case lowMemory
        /// Blocks under 32 MiB stay in the arenas when freed, for the next request: no page
        /// faults re-touching fresh memory (`releaseFreeMemory()` hands them back).
        case lowLatency
    }

    /// `M_ARENA_MAX`.
    public static let arenaMax: Int32 = 2
    /// `M_MMAP_THRESHOLD` of `.lowMemory`, in bytes.
    public static let mmapThreshold: Int32 = 1 << 20
    /// `M_MMAP_THRESHOLD` of `.lowLatency`, in bytes.
    public static let lowLatencyMmapThreshold: Int32 = 32 << 20
    /// `M_TRIM_THRESHOLD` of `.lowLatency`, in bytes.
    public static let lowLatencyTrimThreshold: Int32 = 64 << 20
    static let parameterTrimThreshold: Int32 = -1
    static let parameterMmapThreshold: Int32 = -3
    static let parameterArenaMax: Int32 = -8

    /// Hands the memory the arenas hold free back to the kernel (glibc's `malloc_trim(0)`: the
    /// free top of each arena, and the free pages inside it): for a process on `.lowLatency`
    /// that has gone idle, so what it kept for the next request does not stay resident for
    /// good. True when some memory was released. Not glibc: false.
    @discardableResult
    public static func releaseFreeMemory() -> Bool {
        #if canImport(Glibc)
            typealias MallocTrim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(nil, "malloc_trim") else { return false }
            return unsafeBitCast(symbol, to: MallocTrim.self)(0) == 1
        #else
            return false
        #endif
    }

    /// True when every setting of `profile` was taken. May be called again with another
    /// profile: what is allocated from then on follows it.
    @discardableResult
    public static func apply(_ profile: Profile = .lowMemory) -> Bool {
        #if canImport(Glibc)
            if getenv("PUSHATTACH_MALLOC_DEFAULTS").map({ String(cString: $0) }) == "1" { return false }
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(nil, "mallopt") else { return false }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            let settings: [(Int32, Int32)] =
                switch profile {
                case .lowMemory: [(parameterArenaMax, arenaMax), (parameterMmapThreshold, mmapThreshold)]
                case .lowLatency:
                    [
                        (parameterArenaMax, arenaMax), (parameterMmapThreshold, lowLatencyMmapThreshold),
                        (parameterTrimThreshold, lowLatencyTrimThreshold),
                    ]
                }
            return settings.map { mallopt($0.0, $0.1) }.allSatisfy { $0 == 1 }
        #else
            return false
        #endif
    }
}
