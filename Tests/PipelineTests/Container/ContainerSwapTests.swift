import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// A container swapped mid-run: while a run goes on, the container is
/// renamed and a symbolic link to another folder put in its place. The run opened the container
/// once; every later file of it (the journal, `manifest.json`, a shard's merge) must land in the
/// folder it opened, now under its new name, and nothing in the link's target.
///
/// The swap happens in the run's own event callback, called on the run's path between
/// `Container.open` and the end: the test waits on nothing, and nothing races.
@Suite("Container: a container swapped for a link mid-run keeps its files", .tags(.slow), .notInFastTier)
struct ContainerSwapTests {
    /// The folders of one swap: `moved` is where the container goes, `other` the link's target.
    struct Swap: Sendable {
        let container: URL
        let moved: URL
        let other: URL

        init(container: URL, in dir: URL) {
            self.container = container
            moved = dir.appendingPathComponent("moved")
            other = dir.appendingPathComponent("other")
        }

        /// `mv container moved && mkdir other && ln -s other container`.
        func perform() {
            do {
                try FileManager.default.moveItem(at: container, to: moved)
                try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: container.path, withDestinationPath: other.path)
            } catch {
                Issue.record("the swap failed: \(error)")
            }
        }

        /// An event handler that swaps at the first event it sees, once.
        func onFirstEvent() -> @Sendable (PrepareEvent) -> Void {
            let done = Watched(false)
            return { _ in
                var first = false
                done.update { swapped in
                    first = !swapped
                    swapped = true
                }
                if first { perform() }
            }
        }

        func names(_ folder: URL) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        }
    }

    /// A `--resume` run whose first event (a note: the journal names a file that is gone) comes
    /// before the journal is opened: the journal, and `manifest.json` at the end, go into the
    /// container the run opened, never where the swapped-in link points.
    @Test func resumedRunSwappedBeforeItsJournalOpensWritesOnlyIntoItsContainer() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        f.serveJPEG("/gone.jpg")
        let images = f.container.appendingPathComponent("Images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let earlier = try ManifestJournal(directory: f.container)
        try earlier.append(
            ManifestEntry(
                index: 1, input: f.server.url("/gone.jpg"), line: 2, status: .prepared, file: "Images/A-gone.jpg",
                bytes: 10))
        try earlier.close()
        var options = try f.options([f.server.url("/a.jpg"), f.server.url("/gone.jpg")])
        options.resume = true
        let swap = Swap(container: f.container, in: f.dir.url)

        let notes = Watched([String]())
        let onFirst = swap.onFirstEvent()
        let summary = try await BatchRunner(options: options).run { event in
            onFirst(event)
            if case .note(let text) = event { notes.update { $0.append(text) } }
        }
        #expect(summary.prepared == 2, "\(summary)")
        #expect(notes.value.contains { $0.contains("was moved or replaced during the run") }, "\(notes.value)")
        #expect(swap.names(swap.other) == [], "nothing written where the link points")
        let moved = swap.names(swap.moved)
        #expect(moved.contains(Manifest.fileName) && moved.contains(ManifestJournal.fileName), "\(moved)")
        let (byInput, _) = try f.manifest(swap.moved)
        #expect(byInput[f.server.url("/a.jpg")]?.status == .prepared)
        #expect(byInput[f.server.url("/gone.jpg")]?.status == .prepared)
        let journal = try String(
            contentsOf: swap.moved.appendingPathComponent(ManifestJournal.fileName), encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 3, "the earlier line and one per item of this run: \(journal)")
    }

    /// The last shard of a sharded run merges the shards' journals into `manifest.json`: a
    /// merge that reopened the container by path would write an empty manifest into the link's
    /// target.
    @Test func lastShardSwappedMidRunMergesIntoItsContainer() async throws {
        let f = try PrepareFixture()
        let first = try Shard(index: 0, count: 2)
        let second = try Shard(index: 1, count: 2)
        // One URL for each shard (the port is in the URL, so pick them by hash).
        var urls: [Int: String] = [:]
        for n in 0..<200 where urls.count < 2 {
            let url = f.server.url("/i\(n).jpg")
            let shard = first.owns(key: url) ? 0 : 1
            if urls[shard] == nil {
                urls[shard] = url
                f.serveJPEG("/i\(n).jpg")
            }
        }
        let list = [try #require(urls[0]), try #require(urls[1])]
        var options = try f.options(list)
        options.shard = second
        _ = try await BatchRunner(options: options).run()

        options.shard = first
        let swap = Swap(container: f.container, in: f.dir.url)
        let summary = try await BatchRunner(options: options).run(events: swap.onFirstEvent())
        #expect(summary.merged, "\(summary)")
        #expect(swap.names(swap.other) == [], "nothing written where the link points")
        let (byInput, entries) = try f.manifest(swap.moved)
        #expect(entries.count == 2)
        #expect(list.allSatisfy { byInput[$0]?.status == .prepared })
    }
}
