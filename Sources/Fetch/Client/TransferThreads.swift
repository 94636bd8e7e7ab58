import Foundation

/// A fixed set of threads that run blocking libcurl transfers off Swift's cooperative pool.
///
///     let threads = TransferThreads(count: 16)
///     threads.submit { handle in … curl_easy_perform on handle … }
///     threads.shutdown()
///
/// Each thread owns one `EasyHandle` for its life. That handle's connection cache is how
/// connections are reused (keep-alive per thread); there is no cross-thread CURLSH share.
final class TransferThreads: @unchecked Sendable {
    typealias Job = @Sendable (EasyHandle?) -> Void

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var stopping = false

    init(count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in run() }
            thread.name = "pushattach.fetch.\(index)"
            thread.stackSize = 512 * 1024
            thread.start()
        }
    }

    /// Queues a job; it runs on the next free thread. After `shutdown()` it runs at once
    /// with no handle, so its continuation is still resumed.
    func submit(_ job: @escaping Job) {
        condition.lock()
        if stopping {
            condition.unlock()
            job(nil)
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the threads finish the queued jobs, then exit.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && !stopping { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 64 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    private func run() {
        let handle = EasyHandle()
        while let job = next() { job(handle) }
    }
}
