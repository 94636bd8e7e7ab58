import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// Identical URLs are downloaded once, whether the first item is still in flight (the later
/// ones wait on it) or already in the journal (the later ones read its line back).
@Suite("prepare: identical URLs downloaded once", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareDedupeTests {
    private func check(_ entries: [ManifestEntry], url: String, lines: [Int]) throws {
        let named = entries.filter { $0.input == url }.sorted { $0.line < $1.line }
        #expect(named.map(\.line) == lines)
        let first = try #require(named.first)
        #expect(first.status == .prepared)
        for later in named.dropFirst() {
            #expect(later.status == .prepared)
            #expect(later.file == first.file && later.sha256 == first.sha256 && later.bytes == first.bytes)
            #expect(later.identifier == first.identifier && later.width == first.width)
            #expect(
                later.warnings.contains {
                    $0.hasPrefix("same URL as ") && $0.hasSuffix(":\(lines[0]); downloaded once")
                })
        }
    }

    /// One item at a time: the first /a.jpg is in the journal before the later ones are read,
    /// so they take the journal path, and only that one.
    @Test func laterItemsReadTheFirstEntryBackFromTheJournal() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        f.serveJPEG("/b.jpg")
        let a = f.server.url("/a.jpg"), b = f.server.url("/b.jpg")
        var options = try f.options([a, b, a, b, a])
        options.maxInFlight = 1
        let paths = Watched([Int: DedupePath]())
        options.dedupeObserver = { line, path in paths.update { $0[line] = path } }
        let (summary, _, entries) = try await f.run(options)
        #expect(paths.value == [3: .readFromJournal, 4: .readFromJournal, 5: .readFromJournal])
        #expect(summary.prepared == 5)
        #expect(f.server.hits("/a.jpg") == 1 && f.server.hits("/b.jpg") == 1)
        try check(entries, url: a, lines: [1, 3, 5])
        try check(entries, url: b, lines: [2, 4])
        #expect(f.attachmentFiles(options.container).count == 2)
    }

    /// The first download is held at the server until both later items have been told to wait
    /// for it, so they take the in-flight path, and only that one.
    @Test func laterItemsWaitForTheFirstInFlight() async throws {
        let f = try PrepareFixture()
        let gate = f.server.hold("/slow.jpg", .bytes(PrepareFixture.jpeg, contentType: "image/jpeg"))
        let slow = f.server.url("/slow.jpg")
        var options = try f.options([slow, slow, slow])
        let paths = Watched([Int: DedupePath]())
        options.dedupeObserver = { line, path in paths.update { $0[line] = path } }
        let runner = BatchRunner(options: options)
        async let run = runner.run()

        let waiting = await paths.wait { $0.count >= 2 }
        let held = await gate.wait { $0.waiting == 1 }
        #expect(waiting == [2: .waitedForInFlight, 3: .waitedForInFlight])
        #expect(held?.passed == 0, "the first download was in flight, held, when the later items were read")
        gate.open()
        let summary = try await run

        #expect(paths.value == [2: .waitedForInFlight, 3: .waitedForInFlight])
        let (_, entries) = try f.manifest(options.container)
        #expect(summary.prepared == 3)
        #expect(f.server.hits("/slow.jpg") == 1)
        try check(entries, url: slow, lines: [1, 2, 3])
        #expect(f.attachmentFiles(options.container).count == 1)
    }
}
