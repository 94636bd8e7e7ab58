import Foundation

/// What a run reports as it goes, for progress lines and `--json`.
package enum PrepareEvent: Sendable {
    /// An item started (its download was queued), at its position among the inputs' items.
    case started(InputItem, index: Int)
    /// An item finished; its entry is already in `manifest.jsonl`.
    case finished(ManifestEntry)
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
    /// Reason → count, for rejected and failed items, grouped by the reason's first clause.
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
    package var report: Result<BatchReport.Written, ReportError>?

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
        if entry.status != .prepared, let reason = entry.reason {
            reasons[Self.reasonKey(reason), default: 0] += 1
        }
    }

    /// The reason up to its first `:` or `;`, with URLs dropped so per-item details do not split
    /// the groups ("HTTP 404 from http://…" becomes "HTTP 404").
    static func reasonKey(_ reason: String) -> String {
        let cut = reason.firstIndex(where: { $0 == ":" || $0 == ";" || $0 == "(" }) ?? reason.endIndex
        var text = String(reason[..<cut])
        if let from = text.range(of: " from http") ?? text.range(of: " from file") {
            text = String(text[..<from.lowerBound])
        }
        let words = text.split(separator: " ").filter { !$0.contains("://") }
        return words.joined(separator: " ")
    }
}

/// A run that could not go on: the container is not writable, the disk is full, or the
/// container is locked by another run.
package struct PrepareFailure: Error, Sendable, CustomStringConvertible {
    package var error: ContainerError
    package var summary: PrepareSummary
    package var description: String { error.description }
}
