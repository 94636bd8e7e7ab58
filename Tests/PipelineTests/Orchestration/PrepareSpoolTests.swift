import Fetch
import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// Spooled downloads through the real `BatchRunner`: passthrough by rename, images from the spool,
/// no spool file left behind, and the process memory budget.
@Suite("prepare: spooled bodies and the memory budget", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareSpoolTests {
    /// A minimal MP4 the rules accept: an `ftyp` box (mp42) and an `mdat` box of patterned bytes,
    /// `size` bytes in all.
    static func mp4(size: Int) -> Data {
        var data = Data([0x00, 0x00, 0x00, 0x18]) + Data("ftypmp42".utf8) + Data([0, 0, 0, 0]) + Data("isommp42".utf8)
        let mdat = size - data.count
        data += Data([UInt8(mdat >> 24 & 0xFF), UInt8(mdat >> 16 & 0xFF), UInt8(mdat >> 8 & 0xFF), UInt8(mdat & 0xFF)])
        data += Data("mdat".utf8)
        data += TestHTTPServer.pattern(mdat - 8)
        return data
    }

    @Test func aMovieOverTheThresholdLandsByRenameWithItsHash() async throws {
        let f = try PrepareFixture()
        let movie = Self.mp4(size: 1_500_000)
        f.server.route("/clip.mp4") { _ in .bytes(movie, contentType: "video/mp4") }
        let options = try f.options([f.server.url("/clip.mp4")])
        #expect(options.fetch.spoolThreshold == 1_000_000)
        let (summary, entries, _) = try await f.run(options)
        #expect(summary.prepared == 1)
        let entry = try #require(entries[f.server.url("/clip.mp4")])
        #expect(entry.status == .prepared)
        #expect(entry.category == "movie")
        #expect(entry.bytes == movie.count)
        // Hashed as it was spooled; the digest is sha256sum's of the same 1,500,000 bytes.
        #expect(entry.sha256 == "f59c9cb6ad8a33778b5ec0d4fb957bb4ee72265967d5955574bdf790565f33fe")
        let file = try #require(entry.file)
        #expect(file.hasPrefix("Video/"))
        #expect(try Data(contentsOf: f.container.appendingPathComponent(file)) == movie)
        // The spool folder goes with the run, and no temporary was written beside the file.
        #expect(!FileManager.default.fileExists(atPath: f.container.appendingPathComponent(".spool").path))
        #expect(f.dir.names(in: "out/Video") == [String(file.dropFirst("Video/".count))])
    }

    @Test func aSpooledPassthroughIsMovedNotWritten() throws {
        // The stage says so: the outcome of a passed-through body is the input itself.
        var options = PrepareOptions(container: URL(fileURLWithPath: "/nonexistent"), inputs: [])
        options.cpuThreads = 1
        let stage = MediaStage(options: options.item)
        let movie = Self.mp4(size: 4096)
        let facts = MediaFacts(bytes: [UInt8](movie))
        let outcome = stage.prepare(.memory(movie), facts: facts)
        #expect(outcome.status == .prepared)
        #expect(outcome.outputIsInput)
        #expect(outcome.sha256 == SHA256.hexDigest(of: movie))
        // A digest computed while spooling is taken as it is.
        let given = stage.prepare(movie, facts: facts, streamedDigest: "feed")
        #expect(given.sha256 == "feed")
    }

    @Test func anImageOverTheThresholdIsDecodedFromTheSpool() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/photo.jpg")
        var options = try f.options([f.server.url("/photo.jpg")])
        options.fetch.spoolThreshold = 1000
        options.limits.maxLongSide = 160  // resized: decoded, not passed through
        let (summary, entries, _) = try await f.run(options)
        #expect(summary.prepared == 1)
        let entry = try #require(entries[f.server.url("/photo.jpg")])
        #expect(entry.width == 160 && entry.height == 120)
        let written = try Data(contentsOf: f.container.appendingPathComponent(try #require(entry.file)))
        #expect(entry.sha256 == SHA256.hexDigest(of: written))
    }

    @Test func aPassedThroughImageFromTheSpoolKeepsItsBytesAndHash() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/photo.jpg")
        var options = try f.options([f.server.url("/photo.jpg")])
        options.fetch.spoolThreshold = 1000
        let (_, entries, _) = try await f.run(options)
        let entry = try #require(entries[f.server.url("/photo.jpg")])
        #expect(entry.status == .prepared)
        #expect(entry.sha256 == SHA256.hexDigest(of: PrepareFixture.jpeg))
        let written = try Data(contentsOf: f.container.appendingPathComponent(try #require(entry.file)))
        #expect(written == PrepareFixture.jpeg)
    }

    @Test func spoolFilesAKilledRunLeftAreRemovedAtTheNextStart() async throws {
        let f = try PrepareFixture()
        let spool = f.container.appendingPathComponent(".spool")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        for name in ["body-4242-1-deadbeef", "body-4242-2-cafef00d"] {
            try Data(repeating: 7, count: 1000).write(to: spool.appendingPathComponent(name))
        }
        do {
            let container = try Container.open(at: f.container)
            defer { container.lock.release() }
            #expect(f.dir.names(in: "out/.spool").isEmpty)
        }
        try Data(repeating: 7, count: 1000).write(to: spool.appendingPathComponent("body-4242-3-0"))
        f.serveJPEG("/a.jpg")
        let (summary, _, _) = try await f.run(try f.options([f.server.url("/a.jpg")]))
        #expect(summary.prepared == 1)
        #expect(!FileManager.default.fileExists(atPath: spool.path))
    }

    @Test func aTinyMemoryBudgetStillCompletesEveryItem() async throws {
        let f = try PrepareFixture()
        let movie = Self.mp4(size: 300_000)
        f.server.route("/clip.mp4") { _ in .bytes(movie, contentType: "video/mp4") }
        var urls = f.images(count: 8)
        urls.append(f.server.url("/clip.mp4"))
        urls.append(f.server.url("/status/404"))
        var options = try f.options(urls)
        options.admissionBudget = 1
        options.fetch.spoolThreshold = 10_000
        options.maxInFlight = 6
        let (summary, entries, _) = try await f.run(options)
        #expect(summary.prepared == 9)
        #expect(entries.count == 10)
        #expect(entries[f.server.url("/clip.mp4")]?.sha256 == SHA256.hexDigest(of: movie))
    }

    @Test func aSmallSpoolBudgetStillCompletesEveryItem() async throws {
        let f = try PrepareFixture()
        let urls = f.images(count: 6)
        var options = try f.options(urls)
        options.spoolBudget = 1
        options.fetch.spoolThreshold = 1000
        let (summary, _, _) = try await f.run(options)
        #expect(summary.prepared == 6)
    }
}
