import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport
import Testing
import Verification

/// HEIC and AVIF through the engine: transcoded upright (libheif applies `irot`/`imir`, the
/// engine applies nothing more), to JPEG or PNG with alpha, fitted to the limits, accepted by
/// `verify`, and close to an independent decode.
///
/// References: TestImages/formats/heif/<fixture>.reference.png, the upright decode by Pillow
/// 13.0 + pillow-heif 1.8.1 (libheif 1.23.6) for HEIC and by libvips 8.18 (pyvips-binary) for
/// AVIF, made offline by make-fixtures.sh. The comparison is the mean luma SSIM (11-tap Gaussian
/// window, `SSIM.luma`) of our output and the reference, both composited over black where they
/// have alpha; the threshold is 0.97 for the full-size output (a JPEG q85 re-encode of the same
/// decode) and 0.95 for the fitted one (Lanczos3 here against a box + Lanczos3 of the
/// reference). The reference turned by 180° scores at least 0.05 lower (checked below: the
/// same measure can fail).
@Suite("engine: HEIC and AVIF")
struct ProcessorHEIFTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let format: MediaFormat
        let output: MediaFormat
        let upright: (width: Int, height: Int)
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "heic-8bit-orient6.heic", format: .heic, output: .jpeg, upright: (682, 1024)),
        Case(name: "heic-10bit-orient8.heic", format: .heic, output: .jpeg, upright: (640, 960)),
        Case(name: "avif-alpha-orient2.avif", format: .avif, output: .png, upright: (800, 600)),
    ]

    static func fixture(_ name: String) throws -> Data { try Processing.fixture("formats/heif/\(name)") }

    static func reference(_ c: Case) throws -> PixelBuffer {
        let png = try fixture(c.name.split(separator: ".")[0] + ".reference.png")
        return try PNGCodec.decode(png, options: DecodeOptions()).pixels
    }

    /// RGB over black: alpha-weighted, so colour under transparent pixels does not count.
    static func overBlack(_ image: PixelBuffer) -> PixelBuffer {
        guard image.layout == .rgba else { return image }
        var out = PixelBuffer(width: image.width, height: image.height, layout: .rgb)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = Int(image[x, y, 3])
                for c in 0..<3 { out[x, y, c] = UInt8((Int(image[x, y, c]) * a + 127) / 255) }
            }
        }
        return out
    }

    static func ssim(_ a: PixelBuffer, _ b: PixelBuffer) -> Double { SSIM.luma(overBlack(a), overBlack(b)) }

    @Test(arguments: cases)
    func transcodedUprightAndCloseToTheReference(_ c: Case) throws {
        let data = try Self.fixture(c.name)
        let result = try Processing.run(data, ProcessingLimits(thumbnailSize: 256))
        #expect(!result.passthrough)
        #expect(result.output.format == c.output)
        #expect(result.output.width == c.upright.width && result.output.height == c.upright.height)
        #expect(result.steps.contains("transcoded \(c.format.rawValue) -> \(c.output.rawValue)"), "\(result.steps)")
        #expect(!result.steps.contains { $0.hasPrefix("oriented upright") }, "libheif already turned it: \(result.steps)")
        ProcessorFormatTests.expectAccepted(result.output, c.name)
        let thumb = try #require(result.thumbnail)
        #expect(thumb.format == c.output && max(thumb.width, thumb.height) == 256)
        ProcessorFormatTests.expectAccepted(thumb, "thumbnail of \(c.name)")

        let out = try Processing.pixels(result.output)
        let reference = try Self.reference(c)
        #expect(out.layout == (c.output == .png ? .rgba : .rgb))
        let score = Self.ssim(out, reference)
        #expect(score >= 0.97, "\(c.name): luma SSIM \(score) against the reference decode")
        // The same check can fail: the reference turned by 180° does not pass.
        var turned = PixelBuffer(width: reference.width, height: reference.height, layout: reference.layout)
        for y in 0..<reference.height {
            for x in 0..<reference.width {
                for ch in 0..<reference.layout.channels {
                    turned[reference.width - 1 - x, reference.height - 1 - y, ch] = reference[x, y, ch]
                }
            }
        }
        let wrong = Self.ssim(out, turned)
        #expect(wrong < score - 0.05, "\(c.name): \(score) upright, \(wrong) turned")
    }

    @Test(arguments: cases)
    func fittedToTheLimits(_ c: Case) throws {
        let result = try Processing.run(try Self.fixture(c.name), ProcessingLimits(maxLongSide: 480))
        let expected = Processing.expectedFit(width: c.upright.width, height: c.upright.height, box: 480)
        #expect(result.output.width == expected.width && result.output.height == expected.height)
        #expect(result.output.format == c.output)
        let out = try Processing.pixels(result.output)
        let reference = try Self.reference(c)
        let fitted = Resizer().resize(reference, to: Size(width: expected.width, height: expected.height))
        let score = Self.ssim(out, fitted)
        #expect(score >= 0.95, "\(c.name) fitted to 480: luma SSIM \(score)")
    }

    @Test func pixelBudgetRefusesBeforeDecoding() throws {
        let data = try Self.fixture("heic-8bit-orient6.heic")
        // The size as displayed (irot 270 turns the coded 1024x682), as the sniffer reports it.
        #expect(throws: ProcessingError.codec(.pixelBudgetExceeded(width: 682, height: 1024, budget: 100_000))) {
            try Processing.run(data, ProcessingLimits(policy: AttachmentPolicy(pixelBudget: 100_000)))
        }
        let plan = MediaCheck.plan(data, fileExtension: "heic", policy: AttachmentPolicy(pixelBudget: 100_000)).plan
        #expect(plan.refusal == .overPixelBudget(.heic, width: 682, height: 1024, budget: 100_000))
        #expect(plan.code == .invalidFileSize)
    }

    @Test(arguments: cases)
    func truncatedIsRejectedAsCorrupt(_ c: Case) throws {
        let data = try Self.fixture(c.name)
        let cut = data.prefix(data.count * 2 / 3)
        #expect(throws: ProcessingError.self) { try Processing.run(cut) }
        let policy = AttachmentPolicy()
        let planned = MediaCheck.validate(cut, MediaCheck.plan(cut, fileExtension: "heic", policy: policy), policy: policy)
        // Cut inside the item data the box walk reads (an AV1 sequence header) or inside what libheif reads.
        #expect(planned.plan.code == .corrupt, "\(String(describing: planned.plan.refusal))")
        guard case .damaged(_, let damage)? = planned.plan.refusal else {
            Issue.record("not refused as damaged: \(String(describing: planned.plan.refusal))")
            return
        }
        switch damage {
        case .header, .corrupt, .data: break
        case .exif: Issue.record("refused for its Exif block: \(damage)")
        }
    }

    @Test(arguments: cases)
    func verifySaysTranscodeToTheRightFormat(_ c: Case) throws {
        let data = try Self.fixture(c.name)
        let report = Verifier().verify(data: data, path: c.name, fileExtension: c.format.fileExtension)
        #expect(report.verdict == "transcode", "\(report.reason ?? "")")
        let plan = MediaCheck.plan(data, fileExtension: c.format.fileExtension, policy: AttachmentPolicy()).plan
        #expect(plan.action == .convert && plan.output == c.output, "\(plan)")
    }

    @Test func workingMemoryCountsTheWholeDecodedFrame() {
        let limits = ProcessingLimits(thumbnailSize: 256)
        // libheif decodes a 4032x3024 photo whole (no shrink-on-load): its planes and frame (8
        // bytes a pixel) are counted, far more than a baseline JPEG decoded at 1/2 row by row.
        let heic = ImageProcessor.workingMemory(width: 4032, height: 3024, format: .heic, limits: limits)
        let jpeg = ImageProcessor.workingMemory(
            width: 4032, height: 3024, format: .jpeg, limits: limits, holdsFrame: false)
        #expect(heic >= 4032 * 3024 * 8, "heic \(heic)")
        #expect(heic > jpeg + 4032 * 3024 * 4, "heic \(heic), jpeg \(jpeg)")
        // dav1d keeps picture buffers of its own: AVIF counts 2 bytes a pixel more.
        let avif = ImageProcessor.workingMemory(width: 4032, height: 3024, format: .avif, limits: limits)
        #expect(avif == heic + 4032 * 3024 * 2)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
