import Foundation
import PushAttach
import SystemSupport

/// The journals a container holds: an unsharded run's `manifest.jsonl` and the shards'
/// `manifest.K-of-N.jsonl`, with each shard's completion marker (`manifest.K-of-N.done`).
///
///     let set = try JournalSet(in: folder)
///     set.names           // ["manifest.jsonl", "manifest.0-of-4.jsonl", …]: the merge's order
///     set.incomplete      // shards of N with no journal or no marker yet
///
/// Journals of two different shard counts in one container do not belong to one run: `init`
/// refuses them (`ContainerError.mismatched`).
struct JournalSet {
    /// Journal file names: `manifest.jsonl` first (when present), then the shards by index.
    private(set) var names: [String] = []
    /// The shard count of the shard journals, nil when there are none.
    private(set) var count: Int?
    /// Shard indexes (of `count`) whose journal is missing or not marked done.
    private(set) var incomplete: [Int] = []

    init(in folder: DirectoryHandle) throws(ContainerError) {
        let present = Set(try folder.names())
        if present.contains(ManifestJournal.fileName) { names.append(ManifestJournal.fileName) }
        var shards: [Shard] = []
        for name in present {
            if let shard = Self.shard(ofJournal: name) { shards.append(shard) }
        }
        let counts = Set(shards.map(\.count)).sorted()
        if counts.count > 1 {
            let listed = counts.map { n in "\(n) (\(shards.filter { $0.count == n }.count) journal(s))" }
            throw .mismatched(
                path: folder.path,
                reason:
                    "it holds shard journals of different shard counts: \(listed.joined(separator: ", ")); one container takes one run's shards — move the other run's manifest.*-of-N.jsonl and .done files away"
            )
        }
        guard let n = counts.first else { return }
        count = n
        names += shards.sorted { $0.index < $1.index }.map(\.journalName)
        for k in 0..<n {
            // Shard(index:count:) cannot fail here: 0 ≤ k < n, n from a parsed name.
            guard let shard = try? Shard(index: k, count: n) else { continue }
            if !present.contains(shard.journalName) || !present.contains(shard.doneName) { incomplete.append(k) }
        }
    }

    /// The shard whose journal `name` is (`manifest.K-of-N.jsonl`), or nil.
    static func shard(ofJournal name: String) -> Shard? {
        guard name.hasPrefix("manifest."), name.hasSuffix(".jsonl") else { return nil }
        let middle = name.dropFirst("manifest.".count).dropLast(".jsonl".count)
        let parts = middle.split(separator: "-of-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            let k = Int(parts[0]), let n = Int(parts[1]), String(k) == parts[0], String(n) == parts[1]
        else { return nil }
        return try? Shard(index: k, count: n)
    }

    /// "shards 1, 3 of 4 are not complete (no journal, or no manifest.K-of-N.done: still running or killed)".
    var incompleteMessage: String? {
        guard let count, !incomplete.isEmpty else { return nil }
        let list = incomplete.count > 10
            ? incomplete.prefix(10).map(String.init).joined(separator: ", ") + " and \(incomplete.count - 10) more"
            : incomplete.map(String.init).joined(separator: ", ")
        return "shard\(incomplete.count == 1 ? "" : "s") \(list) of \(count) \(incomplete.count == 1 ? "is" : "are") not complete (no journal, or no manifest.K-of-N.done: still running, or killed — rerun it with --resume)"
    }
}
