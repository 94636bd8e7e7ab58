import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// `Manifest.merge`: journals of a sharded run, merged in input order through sorted runs on
/// disk; refusals; and the resume index's fixed size per entry.
@Suite("merge: shard journals into one manifest.json, streamed", .tags(.slow), .notInFastTier)
struct ManifestMergeTests {
    static func entry(_ index: Int, status: ManifestEntry.Status = .prepared, line: Int? = nil) -> ManifestEntry {
        ManifestEntry(
            index: index, input: "https://x.test/\(index).jpg", line: line ?? index + 1, status: status,
            reason: status == .prepared ? nil : "HTTP 404")
    }

    /// Writes entries 0..<count into shards of `shardCount` by the shard function, each journal
    /// in a scrambled (completion-like) order, and marks the shards in `done` complete.
    static func writeShards(
        _ dir: URL, count: Int, shardCount: Int, done: Set<Int>? = nil, seed: UInt64 = 7
    ) throws {
        var journals: [ManifestJournal] = []
        for k in 0..<shardCount {
            journals.append(try ManifestJournal(directory: dir, name: try Shard(index: k, count: shardCount).journalName))
        }
        var generator = SplitMix64(seed: seed)
        for index in (0..<count).shuffled(using: &generator) {
            let item = entry(index)
            try journals[Shard.assignment(of: item.input, count: shardCount)].append(item)
        }
        for journal in journals { try journal.close() }
        for k in done ?? Set(0..<shardCount) {
            let name = try Shard(index: k, count: shardCount).doneName
            try Data("complete\n".utf8).write(to: dir.appendingPathComponent(name))
        }
    }

    static func document(_ dir: URL) throws -> Manifest.Document {
        try JSONDecoder().decode(
            Manifest.Document.self, from: Data(contentsOf: dir.appendingPathComponent(Manifest.fileName)))
    }

    /// Runs of 7 records force the k-way merge over many temporaries; the text equals the
    /// in-memory (one run) merge's byte for byte, and equals an unsharded journal's manifest.
    @Test func smallRunsGiveTheSameBytesAsOneRun() throws {
        let sharded = try TemporaryDirectory()
        let single = try TemporaryDirectory()
        defer {
            sharded.remove()
            single.remove()
        }
        try Self.writeShards(sharded.url, count: 500, shardCount: 4)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let many = try Manifest.merge(dir: sharded.url, now: date, chunkRecords: 7)
        let manyBytes = try Data(contentsOf: sharded.url.appendingPathComponent(Manifest.fileName))
        let one = try Manifest.merge(dir: sharded.url, now: date, chunkRecords: 1 << 20)
        let oneBytes = try Data(contentsOf: sharded.url.appendingPathComponent(Manifest.fileName))
        #expect(many == one)
        #expect(manyBytes == oneBytes)
        #expect(many.count == 500 && many.statuses == [.prepared: 500])
        #expect(try Self.document(sharded.url).entries.map(\.index) == Array(0..<500))
        // No temporaries left behind by the runs.
        #expect(sharded.names().filter { $0.hasPrefix(".") }.isEmpty)

        let journal = try ManifestJournal(directory: single.url)
        for index in (0..<500).reversed() { try journal.append(Self.entry(index)) }
        try journal.close()
        try Manifest.finalize(dir: single.url, now: date)
        #expect(try Data(contentsOf: single.url.appendingPathComponent(Manifest.fileName)) == oneBytes)
    }

    /// The last line of an item wins inside a journal and across the chunk boundary.
    @Test func lastLineWinsAcrossRuns() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let shard = try Shard(index: 0, count: 1)
        let journal = try ManifestJournal(directory: dir.url, name: shard.journalName)
        for index in 0..<20 { try journal.append(Self.entry(index, status: .failed)) }
        for index in stride(from: 0, to: 20, by: 2) { try journal.append(Self.entry(index)) }
        try journal.close()
        try Data().write(to: dir.url.appendingPathComponent(shard.doneName))
        let merged = try Manifest.merge(dir: dir.url, chunkRecords: 3)
        #expect(merged.count == 20 && merged.statuses == [.prepared: 10, .failed: 10])
        let entries = try Self.document(dir.url).entries
        #expect(entries.map(\.index) == Array(0..<20))
        #expect(entries.map(\.status) == (0..<20).map { $0 % 2 == 0 ? .prepared : .failed })
    }

    @Test func refusesMixedShardCounts() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Self.writeShards(dir.url, count: 30, shardCount: 3)
        try Self.writeShards(dir.url, count: 30, shardCount: 4)
        do {
            try Manifest.merge(dir: dir.url, partial: true)
            Issue.record("journals of 3 and 4 shards were merged")
        } catch {
            guard case .mismatched(_, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("different shard counts") && reason.contains("3 (3 journal(s))"))
            #expect(reason.contains("4 (4 journal(s))"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent(Manifest.fileName).path))
    }

    @Test func refusesAnIncompleteShardUnlessPartial() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // Shard 2 has a journal but no marker (killed); shard 3 has neither.
        try Self.writeShards(dir.url, count: 40, shardCount: 4, done: [0, 1])
        try FileManager.default.removeItem(at: dir.url.appendingPathComponent("manifest.3-of-4.jsonl"))
        do {
            try Manifest.merge(dir: dir.url)
            Issue.record("an incomplete set was merged")
        } catch {
            #expect(error.description.contains("shards 2, 3 of 4 are not complete"))
            #expect(error.description.contains("partial"))
        }
        let partial = try Manifest.merge(dir: dir.url, partial: true)
        let expected = (0..<40).filter { Shard.assignment(of: "https://x.test/\($0).jpg", count: 4) != 3 }
        #expect(partial.count == expected.count)
        #expect(try Self.document(dir.url).entries.map(\.index) == expected)
    }

    /// The index keeps the same bytes for an entry whatever the entry holds: ten prepared
    /// entries with 40 KB of warnings each cost what ten bare ones do.
    @Test func resumeIndexIsFixedBytesPerEntry() throws {
        let small = try TemporaryDirectory()
        let large = try TemporaryDirectory()
        defer {
            small.remove()
            large.remove()
        }
        for (dir, warnings) in [(small, 0), (large, 40)] {
            try FileManager.default.createDirectory(
                at: dir.url.appendingPathComponent("Images"), withIntermediateDirectories: true)
            _ = try dir.file("Images/f.jpg", "x")
            let journal = try ManifestJournal(directory: dir.url)
            for index in 0..<10 {
                var item = Self.entry(index)
                item.file = "Images/f.jpg"
                item.bytes = 1
                item.warnings = (0..<warnings).map { _ in String(repeating: "w", count: 1000) }
                try journal.append(item)
            }
            try journal.close()
        }
        let a = try ResumeIndex(dir: small.url, journals: [ManifestJournal.fileName])
        let b = try ResumeIndex(dir: large.url, journals: [ManifestJournal.fileName])
        #expect(a.preparedCount == 10 && b.preparedCount == 10)
        #expect(a.storedBytes == b.storedBytes)
        #expect(a.storedBytes <= 10 * ResumeIndex.bytesPerEntry)
        #expect(ResumeIndex.bytesPerEntry <= 48)
        #expect(b.isPrepared(index: 3, input: "https://x.test/3.jpg", line: 4))
        #expect(!b.isPrepared(index: 3, input: "https://x.test/3.jpg", line: 5))
        #expect(try b.prepared(url: "https://x.test/7.jpg")?.index == 7)
        #expect(try b.prepared(url: "https://x.test/70.jpg") == nil)
        #expect(b.isReferenced("Images/f.jpg") && !b.isReferenced("Images/g.jpg"))
    }
}

