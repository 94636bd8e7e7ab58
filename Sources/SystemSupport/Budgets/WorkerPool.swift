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
///
/// The threads hold the queue, never the pool: a thread the scheduler starts late, after the
/// pool was released, finds a queue that is stopping and leaves. (Holding the pool `unowned`
/// aborted the process in that case: a one-item run under load ends before a thread starts.)
package final class WorkerPool<State>: @unchecked Sendable {
    private let queue: JobQueue<State>

    package init(name: String, threads count: Int, makeState: @escaping @Sendable () -> State) {
        let queue = JobQueue<State>(threads: max(1, count))
        self.queue = queue
        for index in 0..<max(1, count) {
            let thread = Thread { queue.serve(makeState) }
            thread.name = "pushattach.\(name).\(index)"
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    deinit { shutdown() }

    /// Runs `body` on one of the pool's threads and returns its result.
    package func run<T: Sendable>(_ body: @escaping @Sendable (State) -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            queue.enqueue { state in continuation.resume(returning: body(state)) }
        }
    }

    /// Runs `body` on one of the pool's threads, unless the calling task is cancelled before a
    /// thread takes it: then this returns nil at once, and the job, when its turn comes, does
    /// nothing. A job a thread has started runs to its end and its result is returned.
    ///
    ///     guard let thumb = await pool.runUnlessCancelled({ engine in engine.thumbnail(data) }) else {
    ///         throw CancellationError()
    ///     }
    package func runUnlessCancelled<T: Sendable>(_ body: @escaping @Sendable (State) -> T) async -> T? {
        let job = CancellableJob<T>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
                guard job.install(continuation) else { return continuation.resume(returning: nil) }
                queue.enqueue { state in
                    guard job.start() else { return }
                    job.finish(body(state))
                }
            }
        } onCancel: {
            job.cancel()
        }
    }

    /// Lets queued jobs finish, then waits until every thread has left (when called from one of
    /// the pool's own threads, it does not wait). Safe to call more than once.
    package func shutdown() {
        queue.stop()
    }

    /// The pool's threads made and not yet gone, started or not (tests check that none is left).
    package var liveThreads: Int { queue.liveThreads }
}

/// The jobs of one pool and its threads' bookkeeping, shared by the pool and its threads.
private final class JobQueue<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(State) -> Void] = []
    private var jobIndex = 0
    private var stopping = false
    /// Threads made and not yet gone, started or not.
    private var live: Int
    /// The threads that have started, so that `stop` called from one of them does not wait for itself.
    private var members = Set<UInt>()

    init(threads: Int) {
        live = threads
    }

    var liveThreads: Int { condition.withLock { live } }

    func enqueue(_ job: @escaping (State) -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        guard !members.contains(UInt(bitPattern: Int(bitPattern: pthread_self()))) else { return }
        while live > 0 { condition.wait() }
    }

    /// A thread's life: make its state, run jobs until the queue stops and is empty.
    func serve(_ makeState: () -> State) {
        let me = UInt(bitPattern: Int(bitPattern: pthread_self()))
        condition.lock()
        members.insert(me)
        condition.unlock()
        do {
            let state = makeState()
            while let job = next() { job(state) }
        }  // the state is released here, before the thread reports itself gone
        condition.lock()
        members.remove(me)
        live -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> ((State) -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while jobIndex == jobs.count && !stopping { condition.wait() }
        guard jobIndex < jobs.count else { return nil }
        let job = jobs[jobIndex]
        jobIndex += 1
        if jobIndex > 64 && jobIndex * 2 > jobs.count {
            jobs.removeFirst(jobIndex)
            jobIndex = 0
        }
        return job
    }
}

/// One job of `WorkerPool.runUnlessCancelled`: who resumes its caller, the thread that ran it or
/// the cancellation that came before a thread took it.
private final class CancellableJob<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T?, Never>?
    private var started = false
    private var cancelled = false

    /// Keeps the caller's continuation; false when the task was cancelled already.
    func install(_ continuation: CheckedContinuation<T?, Never>) -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            self.continuation = continuation
            return true
        }
    }

    /// A thread takes the job; false when it was cancelled first (the caller has its nil).
    func start() -> Bool {
        lock.withLock {
            guard !cancelled else { return false }
            started = true
            return true
        }
    }

    func finish(_ value: T) {
        let waiting: CheckedContinuation<T?, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }

    /// The caller's task is cancelled: it gets nil now, unless a thread has started the job.
    func cancel() {
        let waiting: CheckedContinuation<T?, Never>? = lock.withLock {
            cancelled = true
            guard !started else { return nil }
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: nil)
    }
}
