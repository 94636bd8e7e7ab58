import Foundation

/// Keeps libimagequant's OpenMP loops on the calling thread.
///
/// Debian builds libimagequant with OpenMP (it links libgomp). Its quantise and remap loops then
/// start a team of one thread per core on every call, and when a loop ends those threads spin,
/// waiting for the next one (libgomp's default wait policy). Our frames are quantised on the
/// engine's worker threads, which already fill the cores in a batch, so the team competes with
/// them. Measured on the 6-frame fixture, one bench thread (`pushattach-bench --workload a1`,
/// 2 cores): quiet, 168 ms with the team and 200 ms serial; beside two busy processes, 419 ms
/// (p95 497) with the team and 324 ms serial; at load 10-19, 2,949 ms with the team and 217 ms
/// with `OMP_NUM_THREADS=1` (`perf`: 38 % in libgomp's spin loop). The environment variable is
/// read once, when libgomp loads: too late and too global for a library to set.
///
/// `omp_set_num_threads(1)` sets the thread count of the calling thread's later parallel regions
/// only, so calling it before each quantisation makes libimagequant serial on that thread and
/// leaves any other OpenMP user in the process alone. It is looked up at run time, not linked: a
/// libimagequant built without OpenMP has no libgomp, and then there is nothing to do.
enum OpenMPThreads {
    private typealias SetNumThreads = @convention(c) (Int32) -> Void

    /// `omp_set_num_threads` when libgomp is loaded (dlsym over the process's global scope).
    private static let setNumThreads: SetNumThreads? = {
        guard let symbol = dlsym(nil, "omp_set_num_threads") else { return nil }
        return unsafeBitCast(symbol, to: SetNumThreads.self)
    }()

    /// Makes OpenMP parallel regions started from this thread run on it alone.
    static func serialOnThisThread() {
        setNumThreads?(1)
    }
}
