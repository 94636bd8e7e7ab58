import Foundation
import TestSupport
import Testing

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// What a real run writes into the manifest: input order whatever the completion order, the
/// error code, the source's size, each warning once, and one line per item across `--resume`.
@Suite("prepare: a manifest easy to consume", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareManifestTests {
    /// Serves the TestImages file `name` at `/name`, by its bytes alone (no Content-Type).
    func serve(_ f: PrepareFixture, _ names: String...) {
        for name in names {
            f.server.route("/\(name)") { _ in .file(Corpus.testImages.appendingPathComponent(name), contentType: nil) }
        }
    }

    func journalIndices(_ container: URL) throws -> [Int] {
        try String(contentsOf: container.appendingPathComponent(ManifestJournal.fileName), encoding: .utf8)
            .split(separator: "\n").map { try JSONDecoder().decode(ManifestEntry.self, from: Data($0.utf8)).index }
    }

    /// Two INPUTs; the first item of the first is held at the server until every other item has
    /// finished, so it finishes last. `manifest.json` still lists the first INPUT's lines, then
    /// the second's; the journal keeps the order they finished in.
    @Test func entriesAreInInputOrderWhateverTheCompletionOrder() async throws {
        let f = try PrepareFixture()
        let gate = f.server.hold("/first.jpg", .bytes(PrepareFixture.jpeg, contentType: "image/jpeg"))
        f.serveJPEG("/b1.jpg")
        f.serveJPEG("/b2.jpg")
        let first = f.server.url("/first.jpg"), missing = f.server.url("/status/404")
        let b1 = f.server.url("/b1.jpg"), b2 = f.server.url("/b2.jpg")
        var options = try f.options([first, "# a comment", missing, "htp:/bad"])
        let listA = try #require(options.inputs.first)
        let listB = try f.dir.file("b.txt", "\(b1)\n\n\(b2)\n")
        options.inputs.append(listB.path)
        let finished = Watched(0)
        let runner = BatchRunner(options: options)
        async let run = runner.run { event in
            if case .finished = event { finished.update { $0 += 1 } }
        }
        let others = await finished.wait { $0 >= 4 }
        let held = await gate.wait { $0.waiting == 1 }
        let finishedWhileHeld = finished.value
        gate.open()
        let summary = try await run
        #expect(others == 4 && finishedWhileHeld == 4, "every other item finished first")
        #expect(held?.passed == 0, "the first item was held until then")
        #expect(summary.prepared == 3 && summary.failed == 2)

        let (_, entries) = try f.manifest(options.container)
        #expect(entries.map(\.index) == [0, 1, 2, 3, 4])
        #expect(entries.map(\.input) == [first, missing, listA, b1, b2])
        #expect(entries.map(\.line) == [1, 3, 4, 1, 3])
        #expect(entries.map(\.status) == [.prepared, .failed, .failed, .prepared, .prepared])
        let journal = try journalIndices(options.container)
        #expect(journal.count == 5 && journal.last == 0, "the journal is in completion order: \(journal)")
    }

    /// Rejections carry the UNErrorCode `verify --json` gives; a failure only where one applies
    /// (a body over the cap: 102); HTTP errors none. (An image too large in pixels gets 102, as in
    /// `verify`: `sourceSizeIsTheInputUpright`.)
    @Test func rejectionsCarryTheErrorCode() async throws {
        let f = try PrepareFixture()
        serve(f, "truncated.jpg", "not-media.txt", "small-320x240.jpg")
        let urls = [
            "ok": f.server.url("/small-320x240.jpg"),
            "damaged": f.server.url("/truncated.jpg"),
            "notMedia": f.server.url("/not-media.txt"),
            "tooBig": f.server.url("/bytes?size=300000&type=image/jpeg"),
            "notFound": f.server.url("/status/404"),
        ]
        var options = try f.options(urls.values.sorted())
        options.policy.rules.imageByteCap = 250_000  // what an unknown body is held to while downloading
        options.policy.imageInputCap = 250_000
        let (_, byInput, _) = try await f.run(options)
        func entry(_ key: String) throws -> ManifestEntry { try #require(byInput[urls[key]!], "no entry for \(key)") }

        #expect(try entry("ok").status == .prepared && entry("ok").errorCode == nil)
        let damaged = try entry("damaged")
        #expect(damaged.status == .rejected && damaged.errorCode == 105, "\(damaged.reason ?? "")")
        let notMedia = try entry("notMedia")
        #expect(notMedia.status == .rejected && notMedia.errorCode == 101, "\(notMedia.reason ?? "")")
        let tooBig = try entry("tooBig")
        // Over the cap and, by its first bytes, no media: refused as not media, whatever its
        // Content-Type says.
        #expect(tooBig.status == .rejected && tooBig.errorCode == 101 && tooBig.refusal == "not-media", "\(tooBig.reason ?? "")")
        let notFound = try entry("notFound")
        #expect(notFound.status == .failed && notFound.errorCode == nil)
    }

    /// `source_width`/`source_height`: the input upright (an Exif-rotated JPEG stored 600x900
    /// is 900x600), beside the written size; for a GIF its own size; none for audio or bytes
    /// that are not media; the stored size for an image refused before its orientation is read.
    @Test func sourceSizeIsTheInputUpright() async throws {
        let f = try PrepareFixture()
        serve(f, "large-4000x3000.jpg", "animated-120x90.gif", "tone-1s.wav", "not-media.txt", "photo-1600x1200.jpg")
        f.server.route("/rotated.jpg") { _ in
            .file(Corpus.bundled.appendingPathComponent("orientation/Landscape_6.jpg"), contentType: nil)
        }
        let url = { (name: String) in f.server.url("/\(name)") }
        let options = try f.options(
            ["rotated.jpg", "large-4000x3000.jpg", "animated-120x90.gif", "tone-1s.wav", "not-media.txt"].map(url))
        let (_, byInput, _) = try await f.run(options)
        func entry(_ name: String) throws -> ManifestEntry { try #require(byInput[url(name)], "no entry for \(name)") }

        let rotated = try entry("rotated.jpg")
        #expect(rotated.status == .prepared, "\(rotated.reason ?? "")")
        #expect(rotated.sourceWidth == 900 && rotated.sourceHeight == 600)
        #expect(rotated.width == 900 && rotated.height == 600)
        let large = try entry("large-4000x3000.jpg")
        #expect(large.sourceWidth == 4000 && large.sourceHeight == 3000 && large.width == 2048 && large.height == 1536)
        let gif = try entry("animated-120x90.gif")
        #expect(gif.sourceWidth == 120 && gif.sourceHeight == 90 && gif.frames == 3)
        let wav = try entry("tone-1s.wav")
        #expect(wav.status == .prepared && wav.sourceWidth == nil && wav.sourceHeight == nil)
        let text = try entry("not-media.txt")
        #expect(text.status == .rejected && text.sourceWidth == nil && text.sourceHeight == nil)

        // Refused on the pixel budget before the orientation is read: the size its header stores.
        var small = try f.options([url("photo-1600x1200.jpg")], container: f.dir.url.appendingPathComponent("budget"))
        small.limits.policy.pixelBudget = 1_000_000
        let (_, _, refused) = try await f.run(small)
        #expect(refused.first?.status == .rejected && refused.first?.errorCode == 102)
        #expect(
            refused.first?.reason?.hasPrefix("too large: 1600x1200 is 1.9 MP, over the pixel budget of 1 MP") == true)
        #expect(refused.first?.sourceWidth == 1600 && refused.first?.sourceHeight == 1200)
    }

    /// An animated WebP becomes an animated GIF with its frames and no warning (the rules' old
    /// "only the first frame" note is gone: the engine keeps them). A GIF passes through with its
    /// frames and, under `--thumbnail`, a thumbnail of its first frame, as stills have.
    @Test func animationsKeepTheirFramesAndGetThumbnails() async throws {
        let f = try PrepareFixture()
        serve(f, "animated-120x90.webp", "animated-120x90.gif")
        let webpURL = f.server.url("/animated-120x90.webp"), gifURL = f.server.url("/animated-120x90.gif")
        var options = try f.options([webpURL, gifURL])
        options.limits.thumbnailSize = 64
        let (_, byInput, _) = try await f.run(options)

        let webp = try #require(byInput[webpURL])
        #expect(webp.status == .prepared && webp.format == "gif" && webp.frames == 3 && webp.thumbnail != nil)
        #expect(webp.warnings == [])
        let gif = try #require(byInput[gifURL])
        #expect(gif.status == .prepared && gif.format == "gif" && gif.frames == 3)
        #expect(gif.thumbnail != nil)
        #expect(gif.warnings == [])

        // No thumbnail asked for: nothing to explain.
        let plain = try f.options([gifURL], container: f.dir.url.appendingPathComponent("plain"))
        let (_, _, entries) = try await f.run(plain)
        #expect(entries.first?.status == .prepared && entries.first?.warnings == [])
    }

    /// `--resume` twice over the same list: items prepared before are skipped and add no journal
    /// line; only what was rejected or failed is redone (a line each, the last one wins);
    /// `manifest.json` has one entry per input line every time, in input order.
    @Test func resumeAddsNoLineForSkippedItems() async throws {
        let f = try PrepareFixture()
        f.serveJPEG("/a.jpg")
        f.serveJPEG("/b.jpg")
        serve(f, "not-media.txt")
        let a = f.server.url("/a.jpg"), b = f.server.url("/b.jpg")
        let lines = [a, f.server.url("/status/404"), b, a, f.server.url("/not-media.txt")]
        var options = try f.options(lines)
        let first = try await BatchRunner(options: options).run()
        #expect(first.prepared == 3 && first.skipped == 0)
        #expect(f.journalLines(options.container) == 5)

        options.resume = true
        for run in 1...2 {
            let skipped = Watched(0)
            let summary = try await BatchRunner(options: options).run { event in
                if case .skipped = event { skipped.update { $0 += 1 } }
            }
            #expect(summary.skipped == 3 && skipped.value == 3, "run \(run)")
            #expect(summary.total == 2 && summary.failed == 1 && summary.rejected == 1, "run \(run)")
            #expect(f.journalLines(options.container) == 5 + 2 * run, "run \(run): one line per redone item")
            let (_, entries) = try f.manifest(options.container)
            #expect(entries.map(\.index) == [0, 1, 2, 3, 4], "run \(run)")
            #expect(entries.map(\.input) == lines && entries.map(\.line) == [1, 2, 3, 4, 5], "run \(run)")
            #expect(try f.inconsistencies(options.container) == [], "run \(run)")
        }
        #expect(f.server.hits("/a.jpg") == 1 && f.server.hits("/b.jpg") == 1)
    }
}
