import Foundation

/// A weighted async semaphore over bytes: the process-wide memory budget items are admitted
/// by (`PrepareOptions.admissionBudget`).
///
///     let budget = MemoryBudget(capacity: 256_000_000)
///     let lease = try await budget.acquire(40_000_000)   // waits while others hold too much
///     defer { lease.release() }
///
/// - Waiters are served first come, first served: a request that does not fit holds back the
///   ones behind it, so a large item is not starved by a stream of small ones.
/// - A request over the whole capacity is cut to the capacity: it waits until nothing else is
///   held and then runs alone. Nothing waits for ever as long as every lease is released.
/// - No busy waiting: a waiter is a suspended continuation, resumed by `release`.
/// - Cancelling a waiting task removes it from the line (`acquire` throws `CancellationError`)
///   and lets the ones behind it through; a lease granted as the task was cancelled is
///   released, never lost.
/// - Callers must not wait for a second lease while holding one (release first): two items
///   each holding part of the budget and waiting for more would wait for each other.
final class MemoryBudget: @unchecked Sendable {
    /// The most bytes held at once (at least 1).
    let capacity: Int
    private let lock = NSLock()
    private var held = 0
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0

    private struct Waiter {
        let id: UInt64
        let weight: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Tests only: told the number of waiters each time one joins the line.
    private let onQueued: (@Sendable (Int) -> Void)?

    init(capacity: Int, onQueued: (@Sendable (Int) -> Void)? = nil) {
        self.capacity = max(1, capacity)
        self.onQueued = onQueued
    }

    /// Bytes held by leases now.
    var heldBytes: Int { lock.withLock { held } }
    /// Tasks waiting now.
    var waitingCount: Int { lock.withLock { waiters.count } }

    /// The weight `bytes` counts for: at least 0, at most `capacity`.
    func weight(of bytes: Int) -> Int { min(max(0, bytes), capacity) }

    /// Waits until `bytes` (cut to the capacity) fit, in line, and holds them.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (or before).
    func acquire(_ bytes: Int) async throws -> MemoryLease {
        let weight = weight(of: bytes)
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if waiters.isEmpty, held + weight <= capacity {
                    held += weight
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters.append(Waiter(id: id, weight: weight, continuation: continuation))
                let count = waiters.count
                lock.unlock()
                onQueued?(count)
            }
        } onCancel: {
            cancel(id)
        }
        return MemoryLease(budget: self, weight: weight)
    }

    /// The lease if `bytes` fit now with nobody waiting, else nil.
    func tryAcquire(_ bytes: Int) -> MemoryLease? {
        let weight = weight(of: bytes)
        let granted: Bool = lock.withLock {
            guard waiters.isEmpty, held + weight <= capacity else { return false }
            held += weight
            return true
        }
        return granted ? MemoryLease(budget: self, weight: weight) : nil
    }

    /// Gives `weight` back and lets in the waiters that now fit, in order.
    fileprivate func release(_ weight: Int) {
        var resumed: [CheckedContinuation<Void, any Error>] = []
        lock.withLock {
            held -= weight
            resumed = admitWaiters()
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Removes the waiter `id` (cancelled), if it is still waiting, and lets in whoever it
    /// held back.
    private func cancel(_ id: UInt64) {
        var cancelled: CheckedContinuation<Void, any Error>?
        var resumed: [CheckedContinuation<Void, any Error>] = []
        lock.withLock {
            if let index = waiters.firstIndex(where: { $0.id == id }) {
                cancelled = waiters.remove(at: index).continuation
                resumed = admitWaiters()
            }
        }
        cancelled?.resume(throwing: CancellationError())
        for continuation in resumed { continuation.resume() }
    }

    /// Under the lock: takes the waiters at the head of the line that fit.
    private func admitWaiters() -> [CheckedContinuation<Void, any Error>] {
        var admitted: [CheckedContinuation<Void, any Error>] = []
        while let first = waiters.first, held + first.weight <= capacity {
            held += first.weight
            admitted.append(first.continuation)
            waiters.removeFirst()
        }
        return admitted
    }
}

/// Bytes of a `MemoryBudget` held by one item; given back once, by `release()` or when the
/// lease goes.
final class MemoryLease: @unchecked Sendable {
    private let budget: MemoryBudget
    private let lock = NSLock()
    private var weight: Int

    fileprivate init(budget: MemoryBudget, weight: Int) {
        self.budget = budget
        self.weight = weight
    }

    deinit { release() }

    /// The bytes still held.
    var heldBytes: Int { lock.withLock { weight } }

    /// Gives the bytes back. Safe to call more than once, from any thread.
    func release() {
        let freed: Int = lock.withLock {
            defer { weight = 0 }
            return weight
        }
        if freed > 0 { budget.release(freed) }
    }
}
