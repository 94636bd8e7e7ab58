import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport
import Testing

/// Every EXIF orientation comes out upright, with no Exif left in the output.
@Suite struct ProcessorOrientationTests {
    static let names = ["Landscape", "Portrait"].flatMap { kind in (0...8).map { "\(kind)_\($0)" } }
    static let limits = ProcessingLimits(thumbnailSize: 256)

    @Test(arguments: names)
    func corpusImageComesOutUpright(_ name: String) throws {
        let kind = name.split(separator: "_")[0]
        let result = try Processing.run(corpus: "orientation/\(name).jpg", Self.limits)
        let reference = try Processing.run(corpus: "orientation/\(kind)_1.jpg", Self.limits)
        // Landscape_N are 3:2 upright, Portrait_N 2:3, whatever their stored size: 1800x1200 in
        // the corpus, 900x600 in the bundled set (half-size derivatives), as Landscape_1 is.
        let landscape = kind == "Landscape"
        #expect(result.output.width == reference.output.width && result.output.height == reference.output.height)
        #expect(result.output.width * 2 == result.output.height * 3 || !landscape)
        #expect(result.output.height * 2 == result.output.width * 3 || landscape)
        let thumb = try #require(result.thumbnail)
        let refThumb = try #require(reference.thumbnail)
        #expect(thumb.width == refThumb.width && thumb.height == refThumb.height)
        #expect(thumb.width == (landscape ? 256 : 171) && thumb.height == (landscape ? 171 : 256))
        let ssim = SSIM.luma(try Processing.pixels(thumb), try Processing.pixels(refThumb))
        #expect(ssim >= 0.9, "\(name): luma SSIM \(ssim) against \(kind)_1")
        // Output pixels too (the main output, not just the thumbnail).
        let mainSSIM = SSIM.luma(
            try Processing.pixels(result.output).downsampledForSSIM,
            try Processing.pixels(reference.output).downsampledForSSIM)
        #expect(mainSSIM >= 0.9, "\(name): main output SSIM \(mainSSIM)")
        // Rotated or mirrored inputs are re-encoded upright with no Exif orientation left.
        let orientation = try ExifOrientation.read(jpeg: [UInt8](try Corpus.data("orientation/\(name).jpg")))
        if orientation != .up {
            #expect(!result.passthrough)
            #expect(result.steps.contains("oriented upright (EXIF \(orientation.rawValue))"))
            #expect(try ExifOrientation.read(jpeg: [UInt8](result.output.data)) == .up)
        }
    }

    /// A synthetic image stored in each orientation is turned back to the original.
    @Test(arguments: Orientation.allCases)
    func syntheticOrientationRoundTrips(_ orientation: Orientation) throws {
        let upright = Synthetic.make(.edges, width: 120, height: 80, layout: .rgb)
        let stored = Self.store(upright, as: orientation)
        let jpeg = Self.withExif(try JPEGCodec.encode(stored, quality: 95, subsampling: .s444), orientation)
        #expect(try ExifOrientation.read(jpeg: [UInt8](jpeg)) == orientation)

        let result = try Processing.run(jpeg, ProcessingLimits(maxLongSide: 60))
        #expect(result.output.width == 60 && result.output.height == 40)
        #expect(result.passthrough == false)
        let out = try Processing.pixels(result.output)
        let expected = ReferenceResize.lanczos3(upright, width: 60, height: 40)
        #expect(meanAbsDifference(out, expected) < 6, "orientation \(orientation)")
    }

    /// The stored image that `orientation` turns into `upright` (the inverse of `apply`).
    static func store(_ upright: PixelBuffer, as orientation: Orientation) -> PixelBuffer {
        // Each orientation's inverse: 6 and 8 swap, the others are their own inverse.
        let inverse: Orientation =
            switch orientation {
            case .right: .left
            case .left: .right
            default: orientation
            }
        return inverse.apply(to: upright)
    }

    /// `jpeg` with an APP1 Exif block (big-endian TIFF, one IFD0 entry) right after SOI.
    static func withExif(_ jpeg: Data, _ orientation: Orientation) -> Data {
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]  // MM, 42, IFD0 at 8
        tiff += [0, 1]  // one entry
        tiff += [0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, UInt8(orientation.rawValue), 0, 0]
        tiff += [0, 0, 0, 0]  // no next IFD
        let payload = Array("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        var out = Data(jpeg.prefix(2))
        out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        out += jpeg.dropFirst(2)
        return out
    }
}

extension PixelBuffer {
    /// The image box-averaged by 4 (SSIM on a 1800x1200 debug build is slow; this keeps structure).
    var downsampledForSSIM: PixelBuffer { Processing.boxReduce(self, factor: 4) }
}
