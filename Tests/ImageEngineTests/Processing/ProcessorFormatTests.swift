import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport
import Testing
import Verification

/// Output formats: WebP transcodes, alpha decides PNG, CMYK becomes RGB, and every output is
/// something iOS accepts.
@Suite struct ProcessorFormatTests {
    static func expectAccepted(_ image: ProcessedImage, _ label: String) {
        let report = Verifier().verify(
            data: image.data, path: "\(label).\(image.format.fileExtension)", fileExtension: image.format.fileExtension)
        #expect(report.isAccepted, "\(label): \(report.verdict) \(report.reason ?? "")")
    }

    struct WebPCase: Sendable, CustomTestStringConvertible {
        let file: String
        let format: MediaFormat
        let width: Int
        let height: Int
        var testDescription: String { file }
    }

    static let webpCases = [
        WebPCase(file: "lossy-320x240.webp", format: .jpeg, width: 320, height: 240),
        WebPCase(file: "alpha-lossless-256x256.webp", format: .png, width: 256, height: 256),
        // An animated WebP becomes an animated GIF: Animation/AnimationProcessingTests.
    ]

    @Test(arguments: webpCases)
    func webpIsTranscoded(_ c: WebPCase) throws {
        let data = try Processing.fixture(c.file)
        let result = try Processing.run(data, ProcessingLimits(thumbnailSize: 64))
        #expect(result.passthrough == false)
        #expect(result.output.format == c.format)
        #expect(result.output.width == c.width && result.output.height == c.height)
        #expect(result.steps.contains("transcoded webp -> \(c.format.rawValue)"), "\(result.steps)")
        Self.expectAccepted(result.output, c.file)
        let thumb = try #require(result.thumbnail)
        #expect(thumb.format == c.format)
        Self.expectAccepted(thumb, "thumbnail of \(c.file)")
        // The pixels survive the transcode: compare with the codec's own decode.
        let source = try WebPCodec.decode(data, options: DecodeOptions()).pixels
        let out = try Processing.pixels(result.output)
        #expect(SSIM.luma(out, source) >= 0.9)
        if c.format == .png {
            #expect(out.layout == .rgba)
            #expect(meanAbsDifference(out, source) == 0, "lossless alpha WebP -> PNG is exact")
        }
    }

    @Test func alphaPNGStaysPNGWithAlpha() throws {
        let result = try Processing.run(
            fixture: "alpha-256x256.png", ProcessingLimits(maxLongSide: 128, thumbnailSize: 32))
        #expect(result.output.format == .png && result.output.quality == nil)
        #expect(result.output.width == 128 && result.output.height == 128)
        let out = try Processing.pixels(result.output)
        #expect(out.layout == .rgba)
        var translucent = 0
        for y in 0..<out.height { for x in 0..<out.width where out[x, y, 3] < 255 { translucent += 1 } }
        #expect(translucent > 0)
        #expect(result.thumbnail?.format == .png)
        Self.expectAccepted(result.output, "alpha")
    }

    @Test func alphaPNGWithinLimitsPassesThrough() throws {
        let data = try Processing.fixture("alpha-256x256.png")
        let result = try Processing.run(data)
        #expect(result.passthrough && result.output.data == data && result.output.format == .png)
    }

    /// An RGBA PNG whose alpha is all 255 is opaque: PNG input stays PNG, written as RGB; the
    /// thumbnail is a JPEG.
    @Test func opaqueAlphaPNGCountsAsOpaque() throws {
        let result = try Processing.run(
            fixture: "opaque-alpha-200x150.png", ProcessingLimits(maxLongSide: 100, thumbnailSize: 50))
        #expect(result.steps.contains("alpha channel is fully opaque: treated as opaque"), "\(result.steps)")
        #expect(result.output.format == .png)
        #expect(try Processing.pixels(result.output).layout == .rgb)
        #expect(result.thumbnail?.format == .jpeg)
    }

    /// Opaque PNG that cannot fit the cap as PNG falls back to JPEG at the same size.
    @Test func opaquePNGOverTheCapBecomesJPEG() throws {
        let png = try PNGCodec.encode(Synthetic.make(.noise, width: 300, height: 200, layout: .rgb))
        #expect(png.count > 150_000)
        let result = try Processing.run(png, ProcessingLimits(byteCap: 100_000))
        #expect(result.output.format == .jpeg)
        #expect(result.output.data.count <= 100_000)
        #expect(result.steps.contains { $0.hasPrefix("png is") && $0.contains("switching to jpeg") }, "\(result.steps)")
        #expect(result.steps.contains("transcoded png -> jpeg"))
    }

    /// Translucent PNG over the cap shrinks and stays PNG.
    @Test func alphaPNGOverTheCapShrinks() throws {
        var noise = Synthetic.make(.noise, width: 300, height: 200, layout: .rgba)
        for y in 0..<200 { for x in 0..<300 { noise[x, y, 3] = UInt8((x + y) % 256) } }
        let png = try PNGCodec.encode(noise)
        let result = try Processing.run(png, ProcessingLimits(byteCap: 60_000))
        #expect(result.output.format == .png)
        #expect(result.output.data.count <= 60_000)
        #expect(result.output.width < 300)
        #expect(result.steps.contains { $0.hasPrefix("shrunk to") }, "\(result.steps)")
    }

    static let cmykFiles = [
        "photos/cmyk_canon_eos300d_wikimedia.jpg", "jpeg/misc/sharp_cmyk_no_profile.jpg",
        "jpeg/misc/pillow_pil_sample_cmyk.jpg", "jpeg/misc/mei_multiple_icc_segments_cmyk.jpg",
    ]

    /// CMYK/YCCK (Adobe, inverted) JPEGs come out as RGB JPEGs with the right brightness: an
    /// inverted decode would put the mean luma far from the reference's.
    @Test(arguments: cmykFiles)
    func cmykBecomesRGBJPEG(_ path: String) throws {
        let data = try Corpus.data(path)
        let result = try Processing.run(data, ProcessingLimits(maxLongSide: 256))
        #expect(!result.passthrough)
        // Through the embedded profile (canon, mei) or the default CMYK profile (the other two).
        #expect(
            result.steps.contains { $0.hasPrefix("converted ycck to sRGB through the") && $0.contains("(lcms2, ") },
            "\(result.steps)")
        #expect(result.output.format == .jpeg)
        #expect(try JPEGCodec.readInfo(result.output.data).colorSpace == "ycbcr")
        Self.expectAccepted(result.output, path)
        // The codec's full decode is held to Pillow ImageCms in CMYKTests; compare brightness with it.
        let full = try JPEGCodec.decode(data, options: DecodeOptions()).pixels
        let out = try Processing.pixels(result.output)
        let difference = abs(Processing.meanLuma(out) - Processing.meanLuma(full))
        #expect(difference < 4, "\(path): mean luma differs by \(difference) levels")
    }
}
