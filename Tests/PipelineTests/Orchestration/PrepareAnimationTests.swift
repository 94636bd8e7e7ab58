import Foundation
import ImageCodecs
import TestSupport
import Testing
import Verification

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// `prepare` end to end over the loopback server: an animated WebP comes out an animated GIF
/// (frames, size, thumbnail of its first frame) that `verify` accepts, and its manifest entry
/// says so.
@Suite("prepare: animated WebP to animated GIF", .ownThread, .tags(.slow), .notInFastTier)
struct PrepareAnimationTests {
    static let fixture = "formats/animation/animated-160x120-alpha.webp"

    @Test func anAnimatedWebPIsWrittenAsAnAnimatedGIF() async throws {
        let f = try PrepareFixture()
        f.server.route("/anim.webp") { _ in
            .file(Corpus.testImages.appendingPathComponent(Self.fixture), contentType: "image/webp")
        }
        let url = f.server.url("/anim.webp")
        var options = try f.options([url])
        options.limits.thumbnailSize = 80
        let (summary, byInput, _) = try await f.run(options)
        #expect(summary.prepared == 1, "\(summary)")
        let entry = try #require(byInput[url])
        #expect(entry.status == .prepared, "\(entry.reason ?? "")")
        #expect(entry.format == "gif" && entry.uti == "com.compuserve.gif" && entry.category == "image")
        #expect(entry.width == 160 && entry.height == 120 && entry.frames == 6)
        #expect(entry.sourceWidth == 160 && entry.sourceHeight == 120)
        #expect(entry.warnings == [])
        #expect(entry.transform?.contains("transcoded webp -> gif") == true, "\(entry.transform ?? [])")
        let file = try #require(entry.file)
        #expect(file.hasPrefix("Images/") && file.hasSuffix("-anim.gif"))

        let written = try Data(contentsOf: f.container.appendingPathComponent(file))
        #expect(entry.bytes == written.count && written.count <= 10_000_000)
        #expect(entry.sha256 == SHA256.hexDigest(of: written))
        let report = Verifier().verify(data: written, path: file, fileExtension: "gif")
        #expect(report.verdict == "accepted" && report.frames == 6, "\(report.reason ?? "")")
        let frames = try ImageCodecs.withAnimation(written, format: .gif) { source in
            var durations: [Int] = []
            while let frame = try source.nextFrame() { durations.append(frame.durationMilliseconds) }
            return durations
        }
        #expect(frames == [40, 80, 120, 200, 30, 500])

        // The thumbnail: the first frame, 80x60, PNG (the frame has transparent pixels).
        let thumbnail = try #require(entry.thumbnail)
        #expect(thumbnail.hasPrefix("Thumbnails/") && thumbnail.hasSuffix(".png"))
        let thumb = try ImageCodecs.decode(
            try Data(contentsOf: f.container.appendingPathComponent(thumbnail)), format: .png)
        #expect(thumb.pixels.width == 80 && thumb.pixels.height == 60)
    }
}
