import Fetch
import Foundation
import MediaTypes
import SystemSupport

extension ItemPipeline {
    /// What became of `item`, without a manifest: the library's entry point, through the same
    /// per-item path a batch takes (download with every cap and the address guard, one sniff,
    /// `Planner.plan`, the engine, hash, atomic write).
    ///
    ///     let use = try ContainerRegistry.shared.open(folder)
    ///     let pipeline = ItemPipeline(options: options, container: use.container, memory: MemoryBudget(capacity: 256_000_000))
    ///     let outcome = await pipeline.prepareOne(InputItem(url: "https://x.test/cat.jpg", source: "api", line: 0))
    ///     pipeline.shutdown(); use.release()
    ///
    /// Many calls may run at once on one pipeline; they share its download client, its CPU and
    /// I/O threads and its memory budget. Cancelling the calling task stops its download (or its
    /// wait for memory) and gives `.cancelled`, checked again around the engine and after the
    /// write: a file written as the task was cancelled is removed (unless its name is stable,
    /// and so possibly another call's: then it is reported).
    package func prepareOne(_ item: InputItem) async -> ItemOutcome {
        switch await prepare(item, index: 0) {
        case .entry(let entry, let end): return .finished(entry, end: end)
        case .reused(let entry): return .finished(entry, end: .prepared)
        case .abandoned: return .cancelled
        case .fatal(let error): return .fatal(error)
        }
    }
}

/// What `ItemPipeline.prepareOne` made of one item.
package enum ItemOutcome: Sendable {
    /// Prepared, rejected or failed, as the manifest would record it, and how it ended, typed.
    case finished(ManifestEntry, end: ItemEnd)
    /// The task was cancelled before the item finished; nothing of it is left on disk.
    case cancelled
    /// The container cannot be written (disk full, not writable, an unsafe entry).
    case fatal(ContainerError)
}

/// How an item ended, typed: what every face renders (the manifest's `status`, the library's
/// error, `serve`'s answer) and nothing reads back from text.
package enum ItemEnd: Sendable {
    /// Its attachment was written.
    case prepared
    /// The bytes were had and are refused (type, size, damage, policy): `rejected`.
    case refused(Refusal)
    /// The bytes could not be had or the attachment not written (network, HTTP, timeout, I/O):
    /// `failed`, with why.
    case failed(ItemFailure)
}

/// Why an item failed, typed: the download's error, the write's, or what else kept its bytes
/// from being had.
package enum ItemFailure: Sendable {
    case download(FetchError)
    case write(ContainerError)
    /// A local file, or a spooled body, that could not be read.
    case read
    /// The item's own request headers are not valid.
    case input
    /// Limits no image can meet (the engine refused the run's settings).
    case settings

    /// The word failures are grouped by (a manifest's `failure`, the summary's top reasons).
    ///
    ///     ItemFailure.download(.httpStatus(url: u, status: 404)).key   // "http-404"
    package var key: String {
        switch self {
        case .download(let error):
            switch error {
            case .invalidURL: "invalid-url"
            case .unsupportedScheme: "unsupported-scheme"
            case .hostNotAllowed: "host-not-allowed"
            case .addressRefused: "address-refused"
            case .tooManyRedirects: "too-many-redirects"
            case .badRedirect: "bad-redirect"
            case .httpStatus(_, let status, _): "http-\(status)"
            case .tooLarge: "too-large"
            case .timedOut: "timed-out"
            case .connectionFailed: "connection-failed"
            case .tlsFailed: "tls-failed"
            case .cancelled: "cancelled"
            case .spoolFailed: "spool-failed"
            case .spoolBudgetExhausted: "spool-budget"
            case .transferFailed: "transfer-failed"
            }
        case .write: "write"
        case .read: "read"
        case .input: "input"
        case .settings: "settings"
        }
    }
}
