import Foundation

/// A weighted async semaphore over bytes: the process-wide memory budget items are admitted
/// by (`ItemOptions.admissionBudget`).
///
///     let budget = MemoryBudget(capacity: 256_000_000)
///     let lease = try await budget.acquire(40_000_000)   // waits while others hold too much
///     defer { lease.release() }
///
/// - Two kinds of request. A `.download` holds the in-memory part of a body while it downloads
///   and, shrunk to the body (`MemoryLease.shrink(to:)`), while the item waits for the engine;
///   a `.processing` request is what the engine will need on top. Processing requests are
///   served first: no download starts while one waits, so bodies cannot pile up faster than
///   they are processed (they did: 200 calls at once on a 64 MB budget held 124 MB of
///   downloaded bodies waiting, outside the budget).
/// - Within a kind, first come, first served: a request that does not fit holds back the ones
///   behind it, so a large item is not starved by a stream of small ones.
/// - A processing request is granted when it fits, or when nothing else is processing: so the
///   items holding bodies always move on, and one whose need is over what the bodies leave (or
///   over the whole capacity) runs alone. The most ever held is the capacity plus one item's
///   processing need. Downloads never go over the capacity.
/// - No busy waiting: a waiter is a suspended continuation, resumed by `release`.
/// - Cancelling a waiting task removes it from the line (`acquire` throws `CancellationError`)
///   and lets the ones behind it through; a lease granted as the task was cancelled is
///   released, never lost.
/// - An item may hold its download lease while it waits for its processing lease (that is the
///   point); no other lease may be waited for while holding one.
package final class MemoryBudget: @unchecked Sendable {
    /// The most bytes held at once (at least 1).
    package let capacity: Int
    private let lock = NSLock()
    private var held = 0
    /// The part of `held` granted to processing requests.
    private var heldProcessing = 0
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0

    /// What a request is for.
    package enum Kind: Sendable {
        /// A body's in-memory part, while it downloads and waits for the engine.
        case download
        /// What the engine needs for the item (`ImageProcessor.workingMemory`), beyond its body.
        case processing
    }

    private struct Waiter {
        let id: UInt64
        let weight: Int
        let kind: Kind
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Tests only: told the number of waiters each time one joins the line.
    private let onQueued: (@Sendable (Int) -> Void)?

    package init(capacity: Int, onQueued: (@Sendable (Int) -> Void)? = nil) {
        self.capacity = max(1, capacity)
        self.onQueued = onQueued
    }

    /// Bytes held by leases now.
    package var heldBytes: Int { lock.withLock { held } }
    /// Tasks waiting now.
    package var waitingCount: Int { lock.withLock { waiters.count } }

    /// The weight `bytes` counts for: at least 0, at most `capacity`.
    package func weight(of bytes: Int) -> Int { min(max(0, bytes), capacity) }

    /// Waits until `bytes` (cut to the capacity) fit, in line, and holds them.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (or before).
    package func acquire(_ bytes: Int, for kind: Kind = .processing) async throws -> MemoryLease {
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
                // Processing requests pass waiting downloads; nothing passes its own kind.
                let ahead = kind == .processing ? waiters.contains { $0.kind == .processing } : !waiters.isEmpty
                if !ahead, grants(weight, kind) {
                    take(weight, kind)
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters.append(Waiter(id: id, weight: weight, kind: kind, continuation: continuation))
                let count = waiters.count
                lock.unlock()
                onQueued?(count)
            }
        } onCancel: {
            cancel(id)
        }
        return MemoryLease(budget: self, weight: weight, kind: kind)
    }

    /// Whether a request of `weight` for `kind` may be granted now (the lock held).
    private func grants(_ weight: Int, _ kind: Kind) -> Bool {
        switch kind {
        case .download: held + weight <= capacity
        case .processing: held + weight <= capacity || heldProcessing == 0
        }
    }

    private func take(_ weight: Int, _ kind: Kind) {
        held += weight
        if kind == .processing { heldProcessing += weight }
    }

    /// The lease if `bytes` fit now with nobody waiting, else nil.
    package func tryAcquire(_ bytes: Int) -> MemoryLease? {
        let weight = weight(of: bytes)
        let granted: Bool = lock.withLock {
            guard waiters.isEmpty, held + weight <= capacity else { return false }
            take(weight, .processing)
            return true
        }
        return granted ? MemoryLease(budget: self, weight: weight, kind: .processing) : nil
    }

    /// Gives `weight` back and lets in the waiters that now fit, in order.
    fileprivate func release(_ weight: Int, kind: Kind) {
        var resumed: [CheckedContinuation<Void, any Error>] = []
        lock.withLock {
            held -= weight
            if kind == .processing { heldProcessing -= weight }
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
    /// Grants what can be granted: processing requests in their order while the first fits
    /// (or nothing is processing), then, if none waits any more, downloads in theirs.
    private func admitWaiters() -> [CheckedContinuation<Void, any Error>] {
        var admitted: [CheckedContinuation<Void, any Error>] = []
        for kind in [Kind.processing, .download] {
            if kind == .download, waiters.contains(where: { $0.kind == .processing }) { break }
            while let index = waiters.firstIndex(where: { $0.kind == kind }), grants(waiters[index].weight, kind) {
                let first = waiters.remove(at: index)
                take(first.weight, kind)
                admitted.append(first.continuation)
            }
        }
        return admitted
    }
}

/// Bytes of a `MemoryBudget` held by one item; given back once, by `release()` or when the
/// lease goes.
package final class MemoryLease: @unchecked Sendable {
    private let budget: MemoryBudget
    private let kind: MemoryBudget.Kind
    private let lock = NSLock()
    private var weight: Int

    fileprivate init(budget: MemoryBudget, weight: Int, kind: MemoryBudget.Kind) {
        self.budget = budget
        self.weight = weight
        self.kind = kind
    }

    deinit { release() }

    /// The bytes still held.
    package var heldBytes: Int { lock.withLock { weight } }

    /// Gives the bytes back. Safe to call more than once, from any thread.
    package func release() {
        let freed: Int = lock.withLock {
            defer { weight = 0 }
            return weight
        }
        if freed > 0 { budget.release(freed, kind: kind) }
    }

    /// Gives back all but `bytes` (a download's lease, once the body is in: its size).
    /// Never grows the lease.
    package func shrink(to bytes: Int) {
        let freed: Int = lock.withLock {
            let keep = min(weight, max(0, bytes))
            defer { weight = keep }
            return weight - keep
        }
        if freed > 0 { budget.release(freed, kind: kind) }
    }
}
