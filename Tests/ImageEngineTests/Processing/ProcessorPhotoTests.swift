import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport
import Testing

/// Real camera photos: exact thumbnail sizes, quality against a full-resolution reference, and
/// the one-decode / shrink-on-load behaviour.
@Suite(.tags(.slow), .notInFastTier) struct ProcessorPhotoTests {
    static let photos = Corpus.files(in: "photos", extensions: ["jpg"]).map(\.lastPathComponent)

    /// Upright thumbnail sizes, written out by hand from each header size and Exif orientation.
    static let expectedThumbnails: [String: (Int, Int)] = [
        "apple_iphone5_orient3.jpg": (256, 192),  // 3264x2448, 180°
        "canon_eos_1000d_orient6.jpg": (171, 256),  // 3888x2592 stored, 90° -> portrait
        "canon_eos_20d_orient6_prerotated.jpg": (256, 171),  // stored 2336x3504 but Exif 6: follow Exif
        "canon_eos_5d_portrait.jpg": (171, 256),  // 2912x4368
        "canon_powershot_s90_444.jpg": (256, 192),
        "cmyk_canon_eos300d_wikimedia.jpg": (256, 170),  // 500x333 -> 170.50 (170.496)
        "hmd_nokia_8_3_5g.jpg": (256, 110),  // 4608x1976 -> 109.78
        "kodak_pixpro_fz201.jpg": (256, 192),
        "leica_t_typ701_orient8.jpg": (170, 256),  // 4928x3264 stored, 90° -> 169.56
        "mei_issue242_progressive.jpg": (192, 256),
        "mei_issue266_22mp.jpg": (256, 171),
        "mei_issue600_progressive.jpg": (256, 205),  // 1280x1024 -> 204.8
        "nikon_d3100.jpg": (256, 171),
        "olympus_e-p3.jpg": (256, 192),
        "oppo_r7_plus_portrait.jpg": (192, 256),
        "panasonic_dmc_lc70_progressive.jpg": (256, 192),
        "samsung_galaxy_s7_edge.jpg": (256, 192),
    ]

    /// The bundled set carries three of the corpus's 17 photos (progressive, CMYK, 16 MP); each
    /// photo present has its expected size written out above.
    @Test func everyPhotoHasAnExpectedSize() {
        #expect(Self.photos.count == (Corpus.isExternal ? 17 : 3))
        #expect(Set(Self.photos).isSubset(of: Set(Self.expectedThumbnails.keys)), "\(Self.photos)")
    }

    /// The 256 output and thumbnail of every photo. The main output is fitted to 256 too, so
    /// the decode happens at the thumbnail's scale (the 2048 + 256 combination is tested below)
    /// and a debug build stays quick. The thumbnail is encoded at q95 so the comparison measures
    /// decode scaling, orientation and resampling, not JPEG quantisation; the q85 main output
    /// is held to a looser bound for the quantisation it adds (the detailed mei_issue242
    /// loses about 0.05 of luma SSIM at q80).
    @Test(arguments: photos)
    func thumbnailMatchesFullResolutionReference(_ name: String) throws {
        let data = try Corpus.data("photos/\(name)")
        let limits = ProcessingLimits(maxLongSide: 256, thumbnailSize: 256, thumbnailQuality: 95)
        let result = try Processing.run(data, limits)
        let thumb = try #require(result.thumbnail)
        let expected = try #require(Self.expectedThumbnails[name])
        #expect(thumb.width == expected.0 && thumb.height == expected.1, "\(name): \(thumb.width)x\(thumb.height)")
        #expect(result.output.width == expected.0 && result.output.height == expected.1)

        let orientation = try ExifOrientation.read(jpeg: [UInt8](data))
        let upright = orientation.uprightSize(width: result.sourceWidth, height: result.sourceHeight)
        let fit = Processing.expectedFit(width: upright.width, height: upright.height, box: 256)
        #expect(thumb.width == fit.width && thumb.height == fit.height)

        let pixels = try Processing.pixels(thumb)
        #expect(pixels.width == thumb.width && pixels.height == thumb.height)
        let reference = try Processing.referenceThumbnail(
            data, orientation: orientation, size: (thumb.width, thumb.height))
        let ssim = SSIM.luma(pixels, reference)
        #expect(ssim >= 0.95, "\(name): luma SSIM \(ssim)")
        let mainSSIM = SSIM.luma(try Processing.pixels(result.output), reference)
        #expect(mainSSIM >= 0.92, "\(name): q85 main output luma SSIM \(mainSSIM)")
    }

    /// maxLongSide 2048 + thumbnail 256 on 4608x3456: one decode at the smallest TurboJPEG
    /// factor covering 2048x1536 (1/2: 2304x1728; 3/8 gives 1728, too narrow), a 2048 output and
    /// a 256 thumbnail.
    @Test func oneDecodeServesBothOutputs() throws {
        let result = try Processing.run(
            corpus: "photos/kodak_pixpro_fz201.jpg", ProcessingLimits(maxLongSide: 2048, thumbnailSize: 256))
        let decodes = result.steps.filter { $0.hasPrefix("decoded") }
        #expect(decodes == ["decoded at 1/2: 4608x3456 -> 2304x1728"], "\(result.steps)")
        #expect(result.steps.contains("resized 4608x3456 -> 2048x1536"))
        #expect(result.output.format == .jpeg)
        #expect(result.output.width == 2048 && result.output.height == 1536)
        let main = try Processing.pixels(result.output)
        #expect(main.width == 2048 && main.height == 1536)
        let thumb = try #require(result.thumbnail)
        #expect(thumb.format == .jpeg && thumb.width == 256 && thumb.height == 192)
        let thumbPixels = try Processing.pixels(thumb)
        #expect(thumbPixels.width == 256 && thumbPixels.height == 192)
        // Both outputs agree with a full-resolution reference (the main one compared at 256).
        let data = try Corpus.data("photos/kodak_pixpro_fz201.jpg")
        let reference = try Processing.referenceThumbnail(data, orientation: .up, size: (256, 192))
        #expect(SSIM.luma(thumbPixels, reference) >= 0.95)
        let mainAt256 = ReferenceResize.lanczos3(Processing.boxReduce(main, factor: 2), width: 256, height: 192)
        #expect(SSIM.luma(mainAt256, reference) >= 0.95)
    }

    /// A 256 thumbnail of the 16 MP photo never decodes at full size: DCT scaling at 1/8
    /// gives 576x432 (0.7 MB of RGB instead of 48 MB).
    @Test func smallOutputDecodesAtAnEighth() throws {
        let result = try Processing.run(
            corpus: "photos/kodak_pixpro_fz201.jpg", ProcessingLimits(maxLongSide: 256, thumbnailSize: 256))
        let decodes = result.steps.filter { $0.hasPrefix("decoded") }
        #expect(decodes == ["decoded at 1/8: 4608x3456 -> 576x432"], "\(result.steps)")
        #expect(result.output.width == 256 && result.output.height == 192)
        #expect(result.thumbnail?.width == 256 && result.thumbnail?.height == 192)
    }

    /// A 90° orientation swaps the decode box: 1944x1296 stored with Exif 6, bound for 128x192
    /// upright, needs 192x128 stored, which 1/8 (243x162) covers; without the swap 1/8 would be
    /// 162 px short of 192 and the decode twice as large.
    @Test func orientationSwapsTheDecodeBox() throws {
        let stored = Synthetic.make(.edges, width: 1944, height: 1296, layout: .rgb)
        let jpeg = ProcessorOrientationTests.withExif(try JPEGCodec.encode(stored, quality: 90), .right)
        let result = try Processing.run(jpeg, ProcessingLimits(maxLongSide: 192))
        #expect(result.steps.contains("decoded at 1/8: 1944x1296 -> 243x162"), "\(result.steps)")
        #expect(result.steps.contains("oriented upright (EXIF 6)"))
        #expect(result.output.width == 128 && result.output.height == 192)
    }
}
