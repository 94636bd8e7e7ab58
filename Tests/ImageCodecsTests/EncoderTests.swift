import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Encoders: JPEG round trips closely, PNG exactly, and ICC profiles survive.
@Suite struct EncoderTests {
    @Test(arguments: [PixelBuffer.Layout.gray, .rgb, .rgba])
    func pngRoundTripIsExact(_ layout: PixelBuffer.Layout) throws {
        let pixels = Pixels.pattern(width: 67, height: 41, layout: layout)
        for compression in PNGCompression.allCases {
            let png = try PNGCodec.encode(pixels, compression: compression)
            #expect(try PNGCodec.decode(png, options: DecodeOptions()).pixels == pixels)
        }
    }

    @Test(arguments: ChromaSubsampling.allCases)
    func jpegRoundTripIsClose(_ subsampling: ChromaSubsampling) throws {
        // A smooth photo-like source: the corpus reference photo, decoded.
        let source = try JPEGCodec.decode(try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg"), options: DecodeOptions())
            .pixels
        let jpeg = try JPEGCodec.encode(source, quality: 90, subsampling: subsampling)
        let decoded = try JPEGCodec.decode(jpeg, options: DecodeOptions(strict: true))
        let info = try JPEGCodec.readInfo(jpeg)
        if subsampling == .gray {
            #expect(decoded.pixels.layout == .gray)
            #expect(info.subsampling == "gray")
        } else {
            let error = try #require(Pixels.meanAbsoluteError(decoded.pixels, source))
            #expect(error < 3, "mean absolute error \(error)")
            #expect(
                info.subsampling
                    == ["4:4:4", "4:2:2", "4:2:0"][ChromaSubsampling.allCases.firstIndex(of: subsampling)!])
        }
    }

    @Test func progressiveJPEGIsMarkedProgressive() throws {
        let pixels = Pixels.pattern(width: 64, height: 48, layout: .rgb)
        let jpeg = try JPEGCodec.encode(pixels, quality: 80, progressive: true)
        #expect(try JPEGCodec.readInfo(jpeg).isProgressive == true)
        // Baseline after progressive stays decodable (TurboJPEG 2.1 handle-reuse bug).
        for _ in 0..<3 {
            let baseline = try JPEGCodec.encode(pixels)
            #expect(try JPEGCodec.readInfo(baseline).isProgressive == false)
            #expect(try JPEGCodec.decode(baseline, options: DecodeOptions(strict: true)).warnings.isEmpty)
        }
    }

    @Test func rgbaEncodesAsJPEGWithoutAlpha() throws {
        let jpeg = try JPEGCodec.encode(Pixels.pattern(width: 16, height: 16, layout: .rgba))
        #expect(try JPEGCodec.decode(jpeg, options: DecodeOptions()).pixels.layout == .rgb)
    }

    @Test func emptyPixelsAreRefused() {
        let empty = PixelBuffer(width: 0, height: 0, layout: .rgb)
        #expect(throws: CodecError.invalidDimensions(width: 0, height: 0)) { try JPEGCodec.encode(empty) }
        #expect(throws: CodecError.invalidDimensions(width: 0, height: 0)) { try PNGCodec.encode(empty) }
    }

    /// A real multi-segment profile from the corpus (over 64 KB, so it spans APP2 chunks).
    static func bigProfile() throws -> [UInt8] {
        let image = try JPEGCodec.decode(
            try Corpus.data("jpeg/misc/pillow_icc_profile_big.jpg"), options: DecodeOptions())
        return try #require(image.iccProfile)
    }

    @Test func iccProfileSurvivesJPEGToJPEG() throws {
        let source = try JPEGCodec.decode(
            try Corpus.data("jpeg/misc/pillow_icc_profile_big.jpg"), options: DecodeOptions())
        let profile = try #require(source.iccProfile)
        #expect(profile.count > 65_519)
        let jpeg = try JPEGCodec.encode(source.pixels, iccProfile: profile)
        #expect(try JPEGCodec.decode(jpeg, options: DecodeOptions(strict: true)).iccProfile == profile)
        #expect(try JPEGCodec.readInfo(jpeg).iccProfile == profile)
    }

    @Test func iccProfileSurvivesPNGToPNG() throws {
        // A PNG whose iCCP chunk is zlib-compressed by another encoder.
        let source = try PNGCodec.decode(try Corpus.data("pngsuite/extra/libpng_pngtest.png"), options: DecodeOptions())
        let pixels = Pixels.pattern(width: 20, height: 10, layout: .rgb)
        let profile = try Self.bigProfile()
        let png = try PNGCodec.encode(pixels, iccProfile: profile)
        let decoded = try PNGCodec.decode(png, options: DecodeOptions())
        #expect(decoded.iccProfile == profile)
        #expect(decoded.pixels == pixels)
        if let original = source.iccProfile {
            let again = try PNGCodec.decode(
                try PNGCodec.encode(source.pixels, iccProfile: original), options: DecodeOptions())
            #expect(again.iccProfile == original)
        }
    }

    @Test func compressedICCPIsInflated() throws {
        // iCCP deflated by real zlib (level 9): see TestImages/codecs/README.md.
        let folder = Corpus.testImages.appendingPathComponent("codecs")
        let expected = [UInt8](try Data(contentsOf: folder.appendingPathComponent("canon_s90.icc")))
        let png = try Data(contentsOf: folder.appendingPathComponent("gradient_iccp.png"))
        #expect(try PNGCodec.readInfo(png).iccProfile == expected)
        let image = try PNGCodec.decode(png, options: DecodeOptions())
        #expect(image.iccProfile == expected)
        // And it crosses into JPEG.
        let jpeg = try JPEGCodec.encode(image.pixels, iccProfile: image.iccProfile)
        #expect(try JPEGCodec.readInfo(jpeg).iccProfile == expected)
    }

    @Test func damagedICCPIsAWarningNotAFailure() throws {
        let image = try PNGCodec.decode(
            try Corpus.data("broken/png/mei_invalid-iCCP-missing-adler32-checksum.png"), options: DecodeOptions())
        #expect(image.iccProfile == nil)
        #expect(image.warnings.contains { $0.contains("iCCP") })
    }

    @Test func iccProfileCrossesPNGToJPEG() throws {
        let profile = try Self.bigProfile()
        let png = try PNGCodec.encode(Pixels.pattern(width: 8, height: 8, layout: .rgb), iccProfile: profile)
        let decoded = try PNGCodec.decode(png, options: DecodeOptions())
        let jpeg = try JPEGCodec.encode(decoded.pixels, iccProfile: decoded.iccProfile)
        #expect(try JPEGCodec.readInfo(jpeg).iccProfile == profile)
    }
}
