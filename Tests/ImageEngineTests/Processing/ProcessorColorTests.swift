import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport
import Testing

/// Colour: CMYK/YCCK JPEGs with a CMYK profile become sRGB through lcms2, close to Pillow
/// ImageCms's decode (perceptual intent, TestImages/codecs/make-srgb-references.py); RGB
/// profiles such as Display P3 are kept, the pixels untouched.
@Suite struct ProcessorColorTests {
    static let profiled = "photos/cmyk_canon_eos300d_wikimedia.jpg"
    /// The same photo with its profile stripped: through the default CMYK profile.
    static let unprofiled = "jpeg/misc/sharp_cmyk_no_profile.jpg"

    static func reference() throws -> PixelBuffer {
        let url = Corpus.testImages.appendingPathComponent("codecs/cmyk_canon_eos300d_srgb.png")
        return try PNGCodec.decode(try Data(contentsOf: url), options: DecodeOptions()).pixels
    }

    /// Luma SSIM against Pillow ImageCms through the photo's SWOP profile: the lcms2 decode
    /// >= 0.995 (observed 1.0000); the same scan data without its profile, through the default
    /// CMYK profile, >= 0.985 (observed 0.991; the naive formula was 0.981).
    @Test func decodeMatchesPillowImageCms() throws {
        let reference = try Self.reference()
        let managed = try JPEGCodec.decode(try Corpus.data(Self.profiled), options: DecodeOptions()).pixels
        let fallback = try JPEGCodec.decode(try Corpus.data(Self.unprofiled), options: DecodeOptions()).pixels
        let managedSSIM = SSIM.luma(managed, reference), fallbackSSIM = SSIM.luma(fallback, reference)
        print("CMYK decode, luma SSIM against Pillow ImageCms: lcms2 \(managedSSIM), default profile \(fallbackSSIM)")
        #expect(managedSSIM >= 0.995, "lcms2 decode: SSIM \(managedSSIM)")
        #expect(fallbackSSIM >= 0.985, "default profile: SSIM \(fallbackSSIM)")
    }

    /// `process` at the source size (re-encoded, never passed through): the JPEG output is
    /// accepted, untagged, and its luma SSIM against Pillow's decode >= 0.97 (observed 0.988;
    /// the re-encode at q85 4:2:0 costs the rest).
    @Test func processOutputMatchesPillowImageCms() throws {
        let result = try Processing.run(corpus: Self.profiled, ProcessingLimits(maxLongSide: 500))
        #expect(!result.passthrough && result.output.format == .jpeg)
        #expect(result.output.width == 500 && result.output.height == 333)
        #expect(try JPEGCodec.readInfo(result.output.data).iccProfile == nil)
        ProcessorFormatTests.expectAccepted(result.output, Self.profiled)
        #expect(
            result.steps.contains(
                "converted ycck to sRGB through the embedded ICC profile 'U.S. Web Coated (SWOP) v2' (lcms2, perceptual intent)"
            ), "\(result.steps)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let ssim = SSIM.luma(try Processing.pixels(result.output), try Self.reference())
        print("CMYK process output, luma SSIM against Pillow ImageCms: \(ssim)")
        #expect(ssim >= 0.97, "SSIM \(ssim)")
    }

    /// Without a profile the default CMYK profile converts, and the step names it.
    @Test func unprofiledCMYKGoesThroughTheDefaultProfile() throws {
        let result = try Processing.run(corpus: Self.unprofiled, ProcessingLimits(maxLongSide: 256))
        #expect(
            result.steps.contains(
                "converted ycck to sRGB through the default CMYK profile 'Chemical proof', no ICC profile in the file (lcms2, relative colorimetric intent, black point compensation)"
            ), "\(result.steps)")
        #expect(!result.steps.contains { $0.contains("without colour management") }, "\(result.steps)")
        #expect(result.warnings.isEmpty)
    }

    /// A Display P3 JPEG keeps its profile byte for byte, and its pixels are not converted:
    /// the output equals the output of the same JPEG without the profile.
    @Test func displayP3ProfileIsKept() throws {
        let p3 = try Self.displayP3Profile()
        #expect(String(decoding: p3[16..<20], as: UTF8.self) == "RGB ")
        let pixels = Synthetic.make(.gradient, width: 400, height: 300, layout: .rgb)
        let tagged = try JPEGCodec.encode(pixels, quality: 90, iccProfile: p3)
        let untagged = try JPEGCodec.encode(pixels, quality: 90)
        let limits = ProcessingLimits(maxLongSide: 200, thumbnailSize: 64)
        let withP3 = try Processing.run(tagged, limits)
        let without = try Processing.run(untagged, limits)
        #expect(try JPEGCodec.readInfo(withP3.output.data).iccProfile == p3)
        #expect(try JPEGCodec.readInfo(try #require(withP3.thumbnail).data).iccProfile == p3)
        #expect(try Processing.pixels(withP3.output) == (try Processing.pixels(without.output)))
        #expect(!withP3.steps.contains { $0.hasPrefix("converted") || $0.hasPrefix("dropped") }, "\(withP3.steps)")
    }

    /// Apple's Display P3 profile from the iPhone HEIC fixture's `colr` box (type `prof`).
    static func displayP3Profile() throws -> [UInt8] {
        let heic = [UInt8](try Corpus.data("small/extra/ianare_iphone_IMG_5195.heic"))
        let tag = Array("colrprof".utf8)
        let at = try #require(heic.indices.first { heic[$0...].starts(with: tag) })
        let size = heic[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
        let profile = Array(heic[(at + 8)..<(at - 4 + size)])
        // A display ("mntr") profile of the declared size.
        try #require(profile.count >= 132 && profile[12..<16].elementsEqual("mntr".utf8))
        try #require(profile[0..<4].reduce(0) { $0 << 8 | Int($1) } == profile.count)
        return profile
    }
}
