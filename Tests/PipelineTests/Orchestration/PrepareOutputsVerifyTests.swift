import Foundation
import MediaTypes
import TestSupport
import Testing
import Verification

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// What `prepare` writes, `verify` accepts: every image of the conformance set's photo,
/// orientation, PNG and WebP folders is served, prepared with thumbnails by the streaming
/// engine (row decoders, the ring resampler, spooled bodies), and each written file and
/// thumbnail is then judged by `Verifier` as iOS would take it.
@Suite("prepare's outputs pass verify", .serialized, .tags(.slow), .notInFastTier)
struct PrepareOutputsVerifyTests {
    static let sources: [URL] =
        ["photos", "orientation", "pngsuite", "webp"].flatMap {
            Corpus.files(in: $0, extensions: ["jpg", "jpeg", "png", "webp"])
        }
        .filter { !$0.path.contains("/extra/") }

    @Test func everyPreparedFileAndThumbnailIsAccepted() async throws {
        #expect(Self.sources.count >= 150, "only \(Self.sources.count) images")
        let fixture = try PrepareFixture()
        var urls: [String] = []
        for (i, file) in Self.sources.enumerated() {
            let data = try Data(contentsOf: file)
            let path = "/src/\(i)/\(file.lastPathComponent)"
            fixture.server.route(path) { _ in .bytes(data, contentType: nil) }
            urls.append(fixture.server.url(path))
        }
        var options = try fixture.options(urls)
        options.limits.thumbnailSize = 256
        // Spool every body bigger than a small JPEG, so the mapped-file path is the one tested.
        options.fetch.spoolThreshold = 16_384
        let (_, _, entries) = try await fixture.run(options)
        #expect(entries.count == urls.count)

        let prepared = entries.filter { $0.status == .prepared }
        // The PngSuite x* files and broken WebPs are refused; everything decodable is prepared.
        #expect(prepared.count >= Self.sources.count * 3 / 4, "\(prepared.count) of \(Self.sources.count) prepared")
        let verifier = Verifier()
        var checked = 0
        for entry in prepared {
            for relative in [entry.file, entry.thumbnail].compactMap({ $0 }) {
                let report = verifier.verify(fileAt: options.container.appendingPathComponent(relative))
                #expect(
                    report.verdict == "accepted",
                    "\(entry.input) -> \(relative): \(report.verdict) \(report.reason ?? "")")
                checked += 1
            }
            if entry.format == "jpeg" || entry.format == "png" {
                #expect(entry.thumbnail != nil, "\(entry.input): no thumbnail")
            }
        }
        #expect(checked > prepared.count)
    }
}
