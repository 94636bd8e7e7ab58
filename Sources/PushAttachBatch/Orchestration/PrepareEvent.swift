import Foundation
import PushAttach
import SystemSupport

/// What a run reports as it goes, for progress lines and `--json`.
package enum PrepareEvent: Sendable {
    /// An item started (its download was queued), at its position among the inputs' items.
    case started(InputItem, index: Int)
    /// An item finished; its entry is already in `manifest.jsonl`. `end` is how it ended, typed
    /// (nil for an entry shared with an earlier item, or not an item: an input problem).
    case finished(ManifestEntry, end: ItemEnd?)
    /// An item was skipped because the resumed manifest has it prepared.
    case skipped(InputItem, index: Int)
    /// An item that started was abandoned when the run was cancelled: it has no entry, nothing
    /// of it was written, and a resumed run prepares it.
    case cancelled(InputItem, index: Int)
    /// Non-fatal notes: journal lines skipped on resume, orphans removed, …
    case note(String)
}

/// How a run ended.
package struct PrepareSummary: Sendable, Hashable {
    package var prepared = 0
    package var rejected = 0
    package var failed = 0
    /// Items skipped on `--resume` because they were prepared before.
    package var skipped = 0
    /// Pushes that name no media (text-only notifications): no entry, not a failure.
    package var noMedia = 0
    /// Files of a folder, or paths on standard input, passed over as no media.
    package var skippedFiles: [SkippedFile] = []
    /// Group → count, for rejected and failed items (`reasonKey`).
    package var reasons: [String: Int] = [:]
    /// True when the run stopped early on an interrupt; unfinished items were abandoned.
    package var interrupted = false
    package var container: URL
    package var manifest: URL
    /// Input items left to the other shards (`PrepareOptions.shard`).
    package var otherShards = 0
    /// For a shard: true when this run wrote `manifest.json` (every shard was complete).
    package var merged = false
    /// With `PrepareOptions.report`: the report written, or why none was (nil when not asked,
    /// or when the run failed before the end).
    package var report: Result<ReportWriter.Written, ReportError>?

    package init(container: URL) {
        self.container = container
        self.manifest = container.appendingPathComponent(Manifest.fileName)
    }

    package var total: Int { prepared + rejected + failed }
    package var allPrepared: Bool { rejected == 0 && failed == 0 }

    mutating func record(_ entry: ManifestEntry) {
        switch entry.status {
        case .prepared: prepared += 1
        case .rejected: rejected += 1
        case .failed: failed += 1
        }
        if let key = Self.reasonKey(entry) { reasons[key, default: 0] += 1 }
    }

    /// The group a rejected or failed entry is counted in for "top reasons" and the report: its
    /// status, its code and the word for its refusal or failure, never its prose, so every item
    /// refused for one reason is one group whatever its sizes and URLs. Nil when prepared.
    ///
    ///     reasonKey(wavOverItsCap)   // "rejected 102 over-cap"
    ///     reasonKey(origin404)       // "failed http-404"
    package static func reasonKey(_ entry: ManifestEntry) -> String? {
        guard entry.status != .prepared else { return nil }
        let code = entry.errorCode.map { " \($0)" } ?? ""
        let word = (entry.status == .rejected ? entry.refusal : entry.failure) ?? "unknown"
        return "\(entry.status.rawValue)\(code) \(word)"
    }
}

/// A run that could not go on: the container is not writable, the disk is full, or the
/// container is locked by another run.
package struct PrepareFailure: Error, Sendable, CustomStringConvertible {
    package var error: ContainerError
    package var summary: PrepareSummary
    package var description: String { error.description }
}
