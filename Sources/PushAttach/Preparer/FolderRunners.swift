import Foundation
import MediaTypes
import SystemSupport

/// One preparer's per-item paths, one per folder in use: a folder's `ItemPipeline` (download
/// client, CPU and I/O threads) is made by the first call into it and shut down when the last
/// call leaves, or, while a hold (`hold(_:)`) keeps it, when the hold is released.
/// Each pipeline holds a use of the process's shared container (`ContainerRegistry`), so the
/// folder's lock is taken once per process, whatever the number of calls or preparers.
final class FolderRunners: @unchecked Sendable {
    private struct Entry {
        var pipeline: ItemPipeline
        var use: ContainerUse
        var users: Int
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Folders whose last user left and whose pipeline is shutting down now.
    private var closing = 0
    /// Set by `shutDown()`: no folder is acquired any more.
    private var isShutDown = false
    /// Calls between their check of `isShutDown` and their entry (opening the folder): not
    /// idle while any is.
    private var opening = 0
    private let makePipeline: @Sendable (Container) -> ItemPipeline
    /// The folders held by `hold(_:)`, by hold number: each is one user of its folder.
    private var holds: [Int: String] = [:]
    private var nextHold = 0

    init(makePipeline: @escaping @Sendable (Container) -> ItemPipeline) { self.makePipeline = makePipeline }

    /// The folder's pipeline and container, held until `release(key)`.
    /// Nil after `shutDown()`: the caller refuses the call.
    func acquire(_ folder: URL) throws(ContainerError) -> (pipeline: ItemPipeline, container: Container, key: String)? {
        try acquire(.path(folder))
    }

    /// `acquire(_:)` of a path or of a folder already open.
    func acquire(_ folder: FolderLocation) throws(ContainerError)
        -> (pipeline: ItemPipeline, container: Container, key: String)?
    {
        let admitted: Bool = lock.withLock {
            guard !isShutDown else { return false }
            opening += 1
            return true
        }
        guard admitted else { return nil }
        let use: ContainerUse
        do { use = try ContainerRegistry.shared.open(folder) } catch {
            finishOpening()
            throw error
        }
        let key = use.container.url.path
        let (pipeline, surplus): (ItemPipeline, ContainerUse?) = lock.withLock {
            opening -= 1
            if var entry = entries[key] {
                entry.users += 1
                entries[key] = entry
                return (entry.pipeline, use)
            }
            let pipeline = makePipeline(use.container)
            entries[key] = Entry(pipeline: pipeline, use: use, users: 1)
            return (pipeline, nil)
        }
        surplus?.release()
        return (pipeline, use.container, key)
    }

    /// One user of `key` is done; the last one shuts its pipeline down and releases the folder.
    func release(_ key: String) {
        var closing: Entry?
        lock.withLock {
            guard var entry = entries[key] else { return }
            entry.users -= 1
            if entry.users > 0 {
                entries[key] = entry
                return
            }
            entries[key] = nil
            self.closing += 1
            closing = entry
        }
        guard let closing else { return }
        closing.pipeline.shutdown()
        closing.use.release()
        let waiters = lock.withLock {
            self.closing -= 1
            return takeIdleWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// An `acquire` that failed to open its folder stops counting as opening; the idle waiters may go.
    private func finishOpening() {
        let waiters = lock.withLock {
            opening -= 1
            return takeIdleWaiters()
        }
        for waiter in waiters { waiter.resume() }
    }

    /// No folder held, closing or being opened (`lock` held).
    private var isIdle: Bool { entries.isEmpty && closing == 0 && opening == 0 }

    /// The idle waiters to resume when idle, taken from the list; none otherwise (`lock` held).
    private func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
        guard isIdle else { return [] }
        defer { idleWaiters = [] }
        return idleWaiters
    }

    /// Makes `folder` one user more until `unhold(_:)` of the number returned: its pipeline then
    /// lives between calls. Nil after `shutDown()`.
    func hold(_ folder: FolderLocation) throws(ContainerError) -> Int? {
        guard let (_, _, key) = try acquire(folder) else { return nil }
        return lock.withLock {
            nextHold += 1
            holds[nextHold] = key
            return nextHold
        }
    }

    /// Ends hold `number` (once; a later call, or one after `shutDown()` ended it, does nothing).
    func unhold(_ number: Int) {
        guard let key = lock.withLock({ holds.removeValue(forKey: number) }) else { return }
        release(key)
    }

    /// Refuses every later `acquire`, ends every hold, then waits until the calls in progress
    /// are done and every pipeline has stopped.
    func shutDown() async {
        let held: [String] = lock.withLock {
            isShutDown = true
            defer { holds = [:] }
            return Array(holds.values)
        }
        for key in held { release(key) }
        await waitUntilIdle()
    }

    /// Returns once no call holds any folder (every pipeline shut down, every folder released).
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if isIdle { return true }
                idleWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
