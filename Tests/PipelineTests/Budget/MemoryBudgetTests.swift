import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// A `MemoryBudget` whose line the test can watch: `queued` yields the number of waiters each
/// time one joins.
private func makeBudget(_ capacity: Int) -> (MemoryBudget, AsyncStream<Int>.Iterator) {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let budget = MemoryBudget(capacity: capacity, onQueued: { continuation.yield($0) })
    return (budget, stream.makeAsyncIterator())
}

@Suite("Memory budget: a weighted, first-come-first-served, cancellable semaphore", .tags(.slow), .notInFastTier)
struct MemoryBudgetTests {
    @Test func weightsAddUpAndWaitForRoom() async throws {
        let (budget, line) = makeBudget(10)
        var queued = line
        let a = try await budget.acquire(3)
        let b = try await budget.acquire(4)
        #expect(budget.heldBytes == 7)
        let c = Task { try await budget.acquire(4) }
        #expect(await queued.next() == 1)
        a.release()
        let lease = try await c.value
        #expect(budget.heldBytes == 8)
        #expect(lease.heldBytes == 4)
        b.release()
        lease.release()
        lease.release()  // a second release gives nothing back twice
        #expect(budget.heldBytes == 0)
    }

    @Test func aSmallRequestDoesNotPassALargerOneWaitingInLine() async throws {
        let (budget, line) = makeBudget(10)
        var queued = line
        let a = try await budget.acquire(5)
        let large = Task { try await budget.acquire(6) }
        #expect(await queued.next() == 1)
        // 1 byte would fit, but the 6 asked first.
        #expect(budget.tryAcquire(1) == nil)
        let small = Task { try await budget.acquire(1) }
        #expect(await queued.next() == 2)
        a.release()
        let l = try await large.value
        let s = try await small.value
        #expect(budget.heldBytes == 7)
        _ = (l, s)
    }

    @Test func anItemOverTheWholeBudgetRunsAlone() async throws {
        let (budget, line) = makeBudget(10)
        var queued = line
        // Alone from the start: at once, counted as the whole budget.
        let alone = try await budget.acquire(1_000)
        #expect(budget.heldBytes == 10)
        alone.release()
        let small = try await budget.acquire(1)
        let huge = Task { try await budget.acquire(1_000) }
        #expect(await queued.next() == 1)
        // Behind it, nothing else gets in, even what would fit.
        #expect(budget.tryAcquire(1) == nil)
        small.release()
        let lease = try await huge.value
        #expect(budget.heldBytes == 10)
        lease.release()
        #expect(budget.heldBytes == 0)
    }

    @Test func cancellingAWaiterLetsTheOnesBehindItThrough() async throws {
        let (budget, line) = makeBudget(10)
        var queued = line
        let a = try await budget.acquire(5)
        let large = Task { try await budget.acquire(8) }
        #expect(await queued.next() == 1)
        let small = Task { try await budget.acquire(2) }
        #expect(await queued.next() == 2)
        large.cancel()
        await #expect(throws: CancellationError.self) { try await large.value }
        // The small one fits beside `a` now that the large one left the line.
        let s = try await small.value
        #expect(budget.heldBytes == 7)
        #expect(budget.waitingCount == 0)
        s.release()
        a.release()
        #expect(budget.heldBytes == 0)
    }

    @Test func aCancelledTaskGetsNoLeaseAndALeaseGoingAwayReleases() async throws {
        let (budget, _) = makeBudget(10)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await budget.acquire(3)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(budget.heldBytes == 0)
        do {
            let lease = try await budget.acquire(4)
            #expect(lease.heldBytes == 4)
        }
        #expect(budget.heldBytes == 0)
    }
}
