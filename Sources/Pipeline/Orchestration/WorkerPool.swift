import Foundation

/// A fixed set of threads fed by one queue, for blocking work that must stay off Swift's
/// cooperative pool (decode, resize, encode, hashing, file writes and fsync).
///
///     let cpu = WorkerPool(name: "cpu", threads: 2) { ImageStageWorker() }
///     let digest = await cpu.run { _ in SHA256.hexDigest(of: data) }
///     cpu.shutdown()
///
/// Each thread makes its own `State` once, with `makeState`, and hands it to every job it runs:
/// a non-thread-safe engine (one `ImageProcessor` per thread) lives there. Jobs run in FIFO
/// order; `run` suspends the caller with a continuation, never blocks it.
package final class WorkerPool<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(State) -> Void] = []
    private var jobIndex = 0
    private var stopping = false
    private var threads: [Thread] = []

    package init(name: String, threads count: Int, makeState: @escaping @Sendable () -> State) {
        for index in 0..<max(1, count) {
            let thread = Thread { [unowned self] in self.loop(makeState()) }
            thread.name = "pushattach.\(name).\(index)"
            thread.stackSize = 4 << 20
            threads.append(thread)
            thread.start()
        }
    }

    deinit { shutdown() }

    /// Runs `body` on one of the pool's threads and returns its result.
    package func run<T: Sendable>(_ body: @escaping @Sendable (State) -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            enqueue { state in continuation.resume(returning: body(state)) }
        }
    }

    /// Lets queued jobs finish, then ends the threads. Safe to call more than once.
    package func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func enqueue(_ job: @escaping (State) -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop(_ state: State) {
        while true {
            condition.lock()
            while jobIndex == jobs.count && !stopping { condition.wait() }
            if jobIndex == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[jobIndex]
            jobIndex += 1
            if jobIndex > 64 && jobIndex * 2 > jobs.count {
                jobs.removeFirst(jobIndex)
                jobIndex = 0
            }
            condition.unlock()
            job(state)
        }
    }
}
