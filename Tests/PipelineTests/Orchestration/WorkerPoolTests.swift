import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The worker pool's life cycle: its threads may start after the pool is gone.
@Suite("WorkerPool", .tags(.slow), .notInFastTier)
struct WorkerPoolTests {
    /// A pool released right after it is made (a one-item run that ends before a thread was
    /// scheduled): a thread that starts after the pool's deinit must not touch the pool. This
    /// aborted the process ("attempted to read an unowned reference but the object was already
    /// deallocated", SIGABRT) when the threads held the pool `unowned`.
    @Test func aPoolReleasedBeforeItsThreadsStartIsSafe() async {
        for _ in 0..<300 {
            _ = WorkerPool<Int>(name: "test", threads: 3) { 0 }
        }
        // Released after one job too, and after shutdown.
        for round in 0..<100 {
            let pool = WorkerPool<Int>(name: "test", threads: 2) { round }
            #expect(await pool.run { $0 + 1 } == round + 1)
            if round % 2 == 0 { pool.shutdown() }
        }
    }

    /// `shutdown()` waits for the threads to leave: none is left running at the end.
    @Test func shutdownWaitsForTheThreads() async {
        let pool = WorkerPool<Int>(name: "test", threads: 4) { 0 }
        #expect(pool.liveThreads == 4)
        #expect(await pool.run { $0 } == 0)
        pool.shutdown()
        #expect(pool.liveThreads == 0)
    }

    /// A job whose caller is cancelled while it waits for the one thread (held by another job)
    /// returns nil, and never runs once the thread is free; one not cancelled returns its value.
    @Test func aCancelledWaitingJobNeverRuns() async {
        let pool = WorkerPool<Int>(name: "test", threads: 1) { 0 }
        defer { pool.shutdown() }
        let gate = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let blocker = Task { await pool.run { _ in holding.signal(); gate.wait() } }
        holding.wait()  // the thread is taken
        let ran = Mutex(false)
        let waiting = Task { await pool.runUnlessCancelled { _ in ran.withLock { $0 = true }; return 1 } }
        waiting.cancel()
        gate.signal()
        #expect(await waiting.value == nil)
        await blocker.value
        #expect(await pool.run { $0 + 2 } == 2)  // the queue is drained: the cancelled job had its turn
        #expect(ran.withLock { $0 } == false)
        #expect(await pool.runUnlessCancelled { $0 + 3 } == 3)
    }
}
