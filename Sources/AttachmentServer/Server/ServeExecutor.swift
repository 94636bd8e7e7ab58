import Foundation

/// The threads the server's preparations run their Swift code on (awaits, the cache store): its
/// own, so a host process whose cooperative pool is busy or blocked (a test runner, a service
/// doing its own work) cannot hold an answer back. The CPU work of a preparation (decode,
/// resize, encode, hash) runs on the preparer's own threads as always.
@available(macOS 15.0, *)
final class ServeExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var running = 0

    private let name: String

    /// Starts `threads` threads named `name`.
    init(threads: Int, name: String) {
        self.name = name
        condition.lock()
        for _ in 0..<max(1, threads) { startThread() }
        condition.unlock()
    }

    /// Called with the condition locked.
    private func startThread() {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.stackSize = 8 << 20
        running += 1
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // After `stop`, work still in flight (a preparation that outlived its requests) gets a
        // thread that ends once the queue is empty again.
        if running == 0 { startThread() }
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads end once nothing is left to run.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopping { condition.wait() }
            if jobs.isEmpty {
                running -= 1
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
