import Foundation
import ImageEngine
import MediaTypes
import TestSupport
import Testing
import Verification

@testable import PushAttach

@testable import PushAttachBatch
@testable import SystemSupport

/// One decision per file: damaged image data gets the same verdict from `verify`, `prepare` and
/// the library, whatever the output size (and whatever the input's: damage is found before the
/// size cap in both), and is used with the same warning when damaged images are accepted.
@Suite("damaged images: one verdict everywhere", .serialized, .tags(.slow), .notInFastTier)
struct PrepareDamageTests {
    struct Input: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: Data
        let damage: String
        var testDescription: String { name }
    }

    /// A JPEG cut after 6000 bytes, and a 16 MP photo cut in half: both have intact headers.
    static func inputs() throws -> [Input] {
        let photo = try Corpus.data("photos/kodak_pixpro_fz201.jpg")
        let truncated = try Data(contentsOf: Corpus.testImages.appendingPathComponent("truncated.jpg"))
        return [
            Input(
                name: "truncated.jpg",
                bytes: truncated,
                damage: "Premature end of JPEG file"),
            Input(name: "kodak-half.jpg", bytes: photo.prefix(photo.count / 2), damage: "Premature end of JPEG file"),
            // Over iOS's 10 MB image cap as well: damage is found first in both, not "too big".
            Input(name: "truncated-over-cap.jpg", bytes: try overCap(truncated), damage: "Premature end of JPEG file"),
        ]
    }

    /// `jpeg` grown past 10 MB by 160 APP15 segments of 64 KB after SOI (metadata a decoder skips).
    static func overCap(_ jpeg: Data) throws -> Data {
        let segment: [UInt8] = [0xFF, 0xEF, 0xFF, 0xFF] + [UInt8](repeating: 0x20, count: 0xFFFF - 2)
        var out = Data(jpeg.prefix(2))
        for _ in 0..<160 { out += segment }
        out += jpeg.dropFirst(2)
        try #require(out.count > 10_000_000)
        return out
    }

    static let sides = [2048, 800, 256]

    @Test(arguments: sides)
    func rejectedWith105Everywhere(side: Int) async throws {
        for input in try Self.inputs() {
            let reason =
                "the JPEG image data is damaged (\(input.damage)); send a complete file, or use what decodes with AttachmentPolicy.acceptDamaged"

            // verify
            let report = Verifier().verify(data: input.bytes, path: input.name, fileExtension: "jpg")
            #expect(report.verdict == "rejected" && report.errorCode == 105, "\(input.name)")
            #expect(report.reason == reason)

            // the library: the per-file check, then the engine at this size
            let policy = AttachmentPolicy()
            let sniffed = try Sniffer.sniff(input.bytes)
            let planned = MediaCheck.validate(
                input.bytes, MediaCheck.plan(input.bytes, fileExtension: "jpg", policy: policy), policy: policy)
            #expect(planned.plan.refusal == .damaged(.jpeg, .data(detail: input.damage)), "\(input.name)")
            #expect(planned.plan.reason(naming: .library) == reason)
            var limits = policy.limits()
            limits.maxLongSide = side
            #expect(throws: ProcessingError.damaged(.jpeg, detail: input.damage)) {
                _ = try ImageProcessor().process(input.bytes, sniffed: sniffed, limits: limits)
            }

            // prepare
            let entry = try await Self.prepare(input, side: side, acceptDamaged: false)
            #expect(entry.status == .rejected, "\(input.name) at \(side): \(entry.reason ?? "")")
            #expect(entry.reason == reason)
        }
    }

    @Test(arguments: sides)
    func acceptedWithAWarningEverywhereWhenAsked(side: Int) async throws {
        for input in try Self.inputs() {
            let note = "damaged JPEG used as decoded (damaged images accepted)"
            let report = Verifier(options: VerifyOptions(policy: AttachmentPolicy(acceptDamaged: true))).verify(
                data: input.bytes, path: input.name, fileExtension: "jpg")
            // Damage accepted: the plan is what it would be for a whole file (a file over iOS's
            // cap as it stands is fitted: 102 as it is).
            #expect(report.verdict != "rejected", "\(input.name): \(report.reason ?? "")")
            if input.bytes.count > 10_000_000 {
                #expect(report.iosErrorCode == 102 && report.action == .fit, "\(input.name): \(report.reason ?? "")")
            }
            #expect(report.warnings.contains(note), "\(report.warnings)")

            let entry = try await Self.prepare(input, side: side, acceptDamaged: true)
            #expect(entry.status == .prepared, "\(input.name) at \(side): \(entry.reason ?? "")")
            #expect(entry.warnings.contains(note), "\(entry.warnings)")
        }
    }

    /// `prepare` on the bytes as a local file, long side `side`.
    static func prepare(_ input: Input, side: Int, acceptDamaged: Bool) async throws -> ManifestEntry {
        let f = try PrepareFixture()
        let file = try f.dir.file(input.name, bytes: [UInt8](input.bytes))
        var options = try f.options([])
        options.inputs = [file.path]  // a local media file given as an input
        options.limits.maxLongSide = side
        options.policy.acceptDamaged = acceptDamaged
        let (_, _, entries) = try await f.run(options)
        return try #require(entries.first)
    }
}
