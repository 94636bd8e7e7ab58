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
    /// Threads that have not yet returned their handle (curl_easy_cleanup) and exited.
    private var live = 0
    static let namePrefix = "pushattach.fetch."

    init(count: Int) {
        live = max(1, count)
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in run() }
            thread.name = "\(Self.namePrefix)\(index)"
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

    /// Lets the threads finish the queued jobs, then waits until each has cleaned up its
    /// handle and exited. Waiting matters at process exit: a thread still in
    /// `curl_easy_cleanup` while `exit` runs OpenSSL's atexit clean-up crashed in libcrypto
    /// (about one `prepare` in a few thousand, under load). Called from one of the threads
    /// itself (the last reference dropped inside a job), it does not wait.
    func shutdown() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        guard !(Thread.current.name ?? "").hasPrefix(Self.namePrefix) else { return }
        while live > 0 { condition.wait() }
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
        do {
            let handle = EasyHandle()
            while let job = next() { job(handle) }
        }  // the handle is cleaned up here, before the thread reports itself gone
        condition.lock()
        live -= 1
        condition.broadcast()
        condition.unlock()
    }
}
