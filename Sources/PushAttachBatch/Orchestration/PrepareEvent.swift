import Foundation
import PushAttach
import SystemSupport

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
    /// Pushes that name no media (text-only notifications): no entry, not a failure.
    package var noMedia = 0
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
        if entry.status != .prepared, let reason = entry.reason {
            reasons[Self.reasonKey(reason), default: 0] += 1
        }
    }

    /// The group a reason is counted in for "top reasons": its first clause that says what went
    /// wrong, with what varies per item taken out. A clause that only says where (a URL, "element
    /// 2 of the JSON array", "line 7") is skipped, URLs inside a clause become "…", and the text
    /// stops at the next ": ", "; " or " (".
    ///
    ///     reasonKey("http://h/a.jpg: HTTP 404 Not Found")                         // "HTTP 404 Not Found"
    ///     reasonKey("element 2 of the JSON array: no attachment URL found")       // "no attachment URL found"
    ///     reasonKey("cannot spool the body of http://h/a: No space left on device") // "cannot spool the body of …"
    package static func reasonKey(_ reason: String) -> String {
        var rest = Substring(reason)
        while true {
            let end = rest.range(of: ": ")
            let clause = end.map { rest[..<$0.lowerBound] } ?? rest
            if let end, isPlace(clause) {
                rest = rest[end.upperBound...]
                continue
            }
            var text = String(clause)
            for separator in ["; ", " ("] {
                if let cut = text.range(of: separator) { text = String(text[..<cut.lowerBound]) }
            }
            if let from = text.range(of: " from http") ?? text.range(of: " from file") {
                text = String(text[..<from.lowerBound])
            }
            let words = text.split(separator: " ").map { $0.contains("://") ? "…" : String($0) }
            return words.joined(separator: " ")
        }
    }

    /// True for a clause that says where, not what: a URL, a JSON element, a line.
    private static func isPlace(_ clause: Substring) -> Bool {
        let words = clause.split(separator: " ")
        if words.count == 1, clause.contains("://") { return true }
        if clause.hasPrefix("element "), clause.hasSuffix(" of the JSON array") { return true }
        if words.count == 2, words[0] == "line", Int(words[1]) != nil { return true }
        return clause == "the payload"
    }
}

/// A run that could not go on: the container is not writable, the disk is full, or the
/// container is locked by another run.
package struct PrepareFailure: Error, Sendable, CustomStringConvertible {
    package var error: ContainerError
    package var summary: PrepareSummary
    package var description: String { error.description }
}
