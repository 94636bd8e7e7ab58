import Foundation
import ImageCodecs
import TestSupport
import Testing

/// CMYK and YCCK JPEGs decode to sRGB close to Pillow ImageCms's: through their CMYK profile, or
/// through the default CMYK profile when they have none (see TestImages/codecs/README.md).
@Suite struct CMYKTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let source: String
        let reference: String
        /// Crop origin in the full-size decode, or nil for the whole image.
        let crop: (x: Int, y: Int)?
        var testDescription: String { source }
    }

    static let cases = [
        // Without a profile: lcms2 through the default CMYK profile ('Chemical proof'), perceptual.
        Case(
            source: "jpeg/misc/sharp_cmyk_no_profile.jpg", reference: "sharp_cmyk_no_profile_default_srgb_center128.png",
            crop: (186, 102)),
        Case(
            source: "jpeg/misc/pillow_pil_sample_cmyk.jpg", reference: "pillow_pil_sample_cmyk_default_srgb.png",
            crop: nil),
        // With a CMYK (SWOP) profile: lcms2, perceptual, against Pillow ImageCms (lcms2 2.19).
        Case(source: "photos/cmyk_canon_eos300d_wikimedia.jpg", reference: "cmyk_canon_eos300d_srgb.png", crop: nil),
        Case(
            source: "jpeg/misc/mei_multiple_icc_segments_cmyk.jpg", reference: "mei_multiple_icc_segments_srgb.png",
            crop: nil),
    ]

    /// Mean absolute error per channel, in 8-bit levels, allowed against Pillow ImageCms
    /// (observed 0.0-0.3: the same lcms2 transform; the naive formula is 12.5 off).
    static let threshold = 2.0

    @Test(arguments: cases)
    func matchesReference(_ c: Case) throws {
        let data = try Corpus.data(c.source)
        let info = try JPEGCodec.readInfo(data)
        #expect(info.colorSpace == "ycck" || info.colorSpace == "cmyk")
        let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
        #expect(image.pixels.layout == .rgb)
        let reference = try PNGCodec.decode(
            try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/\(c.reference)")),
            options: DecodeOptions()
        ).pixels
        var pixels = image.pixels
        if let crop = c.crop {
            var cropped = PixelBuffer(width: reference.width, height: reference.height, layout: .rgb)
            for y in 0..<reference.height {
                for x in 0..<reference.width {
                    for ch in 0..<3 { cropped[x, y, ch] = pixels[crop.x + x, crop.y + y, ch] }
                }
            }
            pixels = cropped
        }
        let error = try #require(Pixels.meanAbsoluteError(pixels, reference))
        #expect(error < Self.threshold, "mean absolute error \(error)")
    }

    @Test func scaledCMYKDecodeWorks() throws {
        let image = try JPEGCodec.decode(
            try Corpus.data("photos/cmyk_canon_eos300d_wikimedia.jpg"), options: DecodeOptions(minimumSize: (60, 40)))
        #expect(image.pixels.width == 63 && image.pixels.height == 42)
        #expect(image.pixels.layout == .rgb)
    }

    @Test func iccProfileFromMultipleSegments() throws {
        let info = try JPEGCodec.readInfo(try Corpus.data("jpeg/misc/mei_multiple_icc_segments_cmyk.jpg"))
        let profile = try #require(info.iccProfile)
        #expect(profile.count == 557_168)
        #expect(Array(profile[16..<20]) == Array("CMYK".utf8))
    }
}
