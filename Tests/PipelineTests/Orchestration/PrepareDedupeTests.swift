import Foundation
import TestSupport
import Testing

@testable import Pipeline

#if canImport(Glibc)
    import Glibc
#endif

/// Identical URLs are downloaded once, whether the first item is still in flight (the later
/// ones wait on it) or already in the journal (the later ones read its line back).
@Suite("prepare: identical URLs downloaded once")
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

    @Test func laterItemsReadTheFirstEntryBackFromTheJournal() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        f.serveJPEG("/b.jpg")
        let a = f.server.url("/a.jpg"), b = f.server.url("/b.jpg")
        // One item at a time: the first /a.jpg is in the journal before the later ones start.
        var options = try f.options([a, b, a, b, a])
        options.maxInFlight = 1
        let (summary, _, entries) = try await f.run(options)
        #expect(summary.prepared == 5)
        #expect(f.server.hits("/a.jpg") == 1 && f.server.hits("/b.jpg") == 1)
        try check(entries, url: a, lines: [1, 3, 5])
        try check(entries, url: b, lines: [2, 4])
        #expect(f.attachmentFiles(options.container).count == 2)
    }

    @Test func laterItemsWaitForTheFirstInFlight() async throws {
        let f = try PrepareFixture()
        f.server.route("/slow.jpg") { _ in
            usleep(300_000)
            return .bytes(PrepareFixture.jpeg, contentType: "image/jpeg")
        }
        let slow = f.server.url("/slow.jpg")
        let options = try f.options([slow, slow, slow])
        let (summary, _, entries) = try await f.run(options)
        #expect(summary.prepared == 3)
        #expect(f.server.hits("/slow.jpg") == 1)
        try check(entries, url: slow, lines: [1, 2, 3])
    }
}
