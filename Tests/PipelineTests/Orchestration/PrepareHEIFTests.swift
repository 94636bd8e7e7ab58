import Foundation
import MediaTypes
import TestSupport
import Testing
import Verification

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// `prepare` end to end on HEIC and AVIF served by the loopback server (with the Content-Types
/// CDNs send): each is transcoded upright to JPEG, or PNG with alpha, fitted to the limits, with
/// a thumbnail, and `verify` accepts what was written. A truncated HEIC is rejected 105.
@Suite("prepare: HEIC and AVIF", .tags(.slow), .notInFastTier)
struct PrepareHEIFTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent("formats/heif/\(name)"))
    }

    @Test func heicAndAVIFArePreparedUprightAndAccepted() async throws {
        let f = try PrepareFixture()
        // (file, Content-Type, output format, upright size fitted to 512)
        let cases: [(String, String, String, Int, Int)] = [
            ("heic-8bit-orient6.heic", "image/heic", "jpeg", 341, 512),
            ("heic-10bit-orient8.heic", "image/heic", "jpeg", 341, 512),
            ("avif-alpha-orient2.avif", "image/avif", "png", 512, 384),
        ]
        var urls: [String] = []
        for (name, type, _, _, _) in cases {
            let data = try Self.fixture(name)
            f.server.route("/photos/\(name)") { _ in .bytes(data, contentType: type) }
            urls.append(f.server.url("/photos/\(name)"))
        }
        let heic = try Self.fixture("heic-8bit-orient6.heic")
        let truncated = heic.prefix(heic.count / 2)
        f.server.route("/photos/cut.heic") { _ in .bytes(truncated, contentType: "image/heic") }
        urls.append(f.server.url("/photos/cut.heic"))

        var options = try f.options(urls)
        options.limits.maxLongSide = 512
        options.limits.thumbnailSize = 128
        let (_, byInput, _) = try await f.run(options)
        let verifier = Verifier()
        for (i, (name, _, format, width, height)) in cases.enumerated() {
            let entry = try #require(byInput[urls[i]], "\(name): no manifest entry")
            #expect(entry.status == .prepared, "\(name): \(entry.reason ?? "")")
            #expect(entry.format == format, "\(name)")
            #expect(entry.width == width && entry.height == height, "\(name): \(entry.width ?? 0)x\(entry.height ?? 0)")
            #expect(entry.transform?.contains { $0.hasPrefix("transcoded") } == true, "\(name): \(entry.transform ?? [])")
            #expect(entry.thumbnail != nil, "\(name): no thumbnail")
            for relative in [entry.file, entry.thumbnail].compactMap({ $0 }) {
                let report = verifier.verify(fileAt: options.container.appendingPathComponent(relative))
                #expect(report.verdict == "accepted", "\(name) -> \(relative): \(report.reason ?? "")")
                #expect(report.format.rawValue == format)
            }
        }
        let cut = try #require(byInput[urls[3]])
        #expect(cut.status == .rejected)
        #expect(cut.errorCode == 105, "\(cut.reason ?? "")")
    }
}
