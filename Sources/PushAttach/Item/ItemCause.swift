import Fetch
import Foundation
import SystemSupport

extension ItemContext {
    /// What became of `item`, without a manifest: the library's entry point, through the same
    /// per-item path a batch takes (download with every cap and the address guard, claims,
    /// `MediaCheck`, engine, passthrough, hash, final rules check, atomic write).
    ///
    ///     let use = try ContainerRegistry.shared.open(folder)
    ///     let context = ItemContext(options: options, container: use.container, memory: MemoryBudget(capacity: 256_000_000))
    ///     let outcome = await context.prepareOne(InputItem(url: "https://x.test/cat.jpg", source: "api", line: 0))
    ///     context.shutdown(); use.release()
    ///
    /// Many calls may run at once on one context; they share its download client, its CPU and
    /// I/O threads and its memory budget. Cancelling the calling task stops its download (or its
    /// wait for memory) and gives `.cancelled`, checked again around the engine and after the
    /// write: a file written as the task was cancelled is removed (unless its name is stable,
    /// and so possibly another call's: then it is reported).
    package func prepareOne(_ item: InputItem) async -> ItemOutcome {
        let cause = ItemCause()
        let result = await ItemCause.$current.withValue(cause) { await prepare(item, index: 0) }
        switch result {
        case .entry(let entry), .reused(let entry):
            return .finished(entry, cause: cause.fetchError.map(ItemFailure.download) ?? cause.writeError.map(ItemFailure.write))
        case .abandoned: return .cancelled
        case .fatal(let error): return .fatal(error)
        }
    }
}

/// What `ItemContext.prepareOne` made of one item.
package enum ItemOutcome: Sendable {
    /// Prepared, rejected or failed, as the manifest would record it; `cause` is the failing
    /// stage's own error when the download or the write failed.
    case finished(ManifestEntry, cause: ItemFailure?)
    /// The task was cancelled before the item finished; nothing of it is left on disk.
    case cancelled
    /// The container cannot be written (disk full, not writable, an unsafe entry).
    case fatal(ContainerError)
}

/// Why an item failed, typed: the download's error or the write's.
package enum ItemFailure: Sendable {
    case download(FetchError)
    case write(ContainerError)
}

/// The underlying error of a failed download or write, recorded for the task running one item
/// (a task local, so concurrent items never see each other's).
final class ItemCause: @unchecked Sendable {
    @TaskLocal static var current: ItemCause?

    private let lock = NSLock()
    private var download: FetchError?
    private var write: ContainerError?

    var fetchError: FetchError? { lock.withLock { download } }
    var writeError: ContainerError? { lock.withLock { write } }

    func record(_ error: FetchError) { lock.withLock { download = error } }
    func record(_ error: ContainerError) { lock.withLock { write = error } }
}
