import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `line` to standard output at once (unbuffered: a script reading it sees it now).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// glibc malloc: two arenas and a fixed 1 MiB mmap threshold, as the README recommends to a
/// server embedding the library. `mallopt` is in `<malloc.h>`, which the Glibc module does not
/// export, so it is looked up by name; the numbers are glibc's (`M_ARENA_MAX` -8,
/// `M_MMAP_THRESHOLD` -3). Elsewhere (Darwin, musl) it does nothing.
func tuneMalloc() {
    #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(-8, 2)  // M_ARENA_MAX
        _ = mallopt(-3, 1 << 20)  // M_MMAP_THRESHOLD
    #endif
}
