import Foundation
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// The worker pool's life cycle: its threads may start after the pool is gone.
@Suite("WorkerPool")
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
}
