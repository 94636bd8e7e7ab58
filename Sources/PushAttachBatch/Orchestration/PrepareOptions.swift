import Foundation
import PushAttach

/// Everything `BatchRunner` needs to know about one run of `pushattach prepare`: the per-item
/// path's options (`item`, read and written through as if they were this struct's own) and what
/// only a batch has: its inputs, resume, the shard, the report.
///
///     var options = PrepareOptions(container: URL(fileURLWithPath: "out"), inputs: ["list.txt"])
///     options.limits.thumbnailSize = 256         // options.item.limits
///     options.fetch.allowPrivateNetworks = true  // options.item.fetch
///     let summary = try await BatchRunner(options: options).run()
@dynamicMemberLookup
package struct PrepareOptions: Sendable {
    /// How each item is prepared (download, engine, rules, budgets), as `AttachmentPreparer`
    /// prepares one.
    package var item: ItemOptions
    /// INPUT arguments, as `InputReader` reads them (`-` is standard input).
    package var inputs: [String]
    /// Skip what the container's manifest already has prepared; remove files no entry names.
    package var resume = false
    /// Folder INPUTs are searched into their sub-folders.
    package var recursiveFolders = false
    /// Prepare only the items whose URL hashes to this shard (`Shard`), into a container the
    /// other shards share: the run's journal is `manifest.K-of-N.jsonl`, and the last shard to
    /// finish writes `manifest.json` (`Manifest.merge`). Nil: the whole input.
    package var shard: Shard?
    /// At the end, once `manifest.json` is written, also write the container's `report.html`
    /// (`ReportWriter`), through the container the run opened; the outcome is
    /// `PrepareSummary.report`.
    package var report = false
    /// Tests only: told, for each later item naming a URL already seen in this run (its line),
    /// how it gets the first item's outcome.
    var dedupeObserver: (@Sendable (_ line: Int, _ path: DedupePath) -> Void)?

    package init(container: URL, inputs: [String]) {
        self.init(item: ItemOptions(container: container), inputs: inputs)
    }

    /// A run of `inputs` with each item prepared as `item` says.
    package init(item: ItemOptions, inputs: [String]) {
        self.item = item
        self.inputs = inputs
    }

    /// `item`'s options, as this struct's own: `options.limits` is `options.item.limits`.
    package subscript<Value>(dynamicMember path: WritableKeyPath<ItemOptions, Value>) -> Value {
        get { item[keyPath: path] }
        set { item[keyPath: path] = newValue }
    }

    /// `item`'s read-only properties (`policy`), as this struct's own.
    package subscript<Value>(dynamicMember path: KeyPath<ItemOptions, Value>) -> Value { item[keyPath: path] }
}

/// How a later item naming a URL already seen in the run gets the first item's outcome.
package enum DedupePath: Sendable, Equatable {
    /// The first item was still in flight: the later one waits on its `SharedOutcome`.
    case waitedForInFlight
    /// The first item's entry was in the journal: the later one reads it back.
    case readFromJournal
}
