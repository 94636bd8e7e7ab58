import Foundation
import ImageEngine
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs

/// Orientation carried outside JPEG: a PNG's `eXIf` chunk, a PNG's XMP `tiff:Orientation`, a
/// WebP's `EXIF` chunk. Every output comes out upright, at the size asked and not, with the
/// orientation metadata gone once applied. (JPEG: `ProcessorOrientationTests`.)
@Suite struct ProcessorOrientationFormatsTests {
    enum Carrier: String, CaseIterable, Sendable {
        case pngExif = "PNG eXIf"
        /// eXIf holding JPEG's `Exif\0\0` prefix, as some writers make it.
        case pngExifPrefixed = "PNG eXIf with Exif prefix"
        case pngXMP = "PNG XMP"
        case webpExif = "WebP EXIF"
        case webpXMP = "WebP XMP"
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let carrier: Carrier
        let orientation: Orientation
        /// nil: the default limits (a PNG would pass through if it were upright); else a resize.
        let maxLongSide: Int?
        var testDescription: String {
            "\(carrier.rawValue) \(orientation.rawValue)\(maxLongSide.map { " at \($0)" } ?? "")"
        }
    }

    static let cases: [Case] = Carrier.allCases.flatMap { carrier in
        Orientation.allCases.flatMap { orientation in
            [nil, 60].map { Case(carrier: carrier, orientation: orientation, maxLongSide: $0) }
        }
    }

    @Test(arguments: cases)
    func outputIsUpright(_ c: Case) throws {
        let (input, upright) = try Self.input(c.carrier, c.orientation)
        var limits = ProcessingLimits()
        if let side = c.maxLongSide { limits.maxLongSide = side }
        let result = try Processing.run(input, limits)

        let fit = Processing.expectedFit(width: upright.width, height: upright.height, box: c.maxLongSide ?? 2048)
        #expect(result.output.width == fit.width && result.output.height == fit.height, "\(c.testDescription)")
        let out = try Processing.pixels(result.output)
        let expected =
            fit.width == upright.width
            ? upright : ReferenceResize.lanczos3(upright, width: fit.width, height: fit.height)
        let difference = meanAbsDifference(out.droppingAlpha, expected.droppingAlpha)
        #expect(difference < 8, "\(c.testDescription): mean difference \(difference) from the upright image")

        if c.orientation != .up {
            #expect(!result.passthrough)
            let source = [.pngXMP, .webpXMP].contains(c.carrier) ? "XMP" : "EXIF"
            #expect(result.steps.contains("oriented upright (\(source) \(c.orientation.rawValue))"), "\(result.steps)")
        }
        // Nothing left for a viewer to rotate again.
        switch result.output.format {
        case .png:
            let info = try PNGCodec.readInfo(result.output.data)
            if !result.passthrough { #expect(info.exif == nil && info.xmp == nil) }
        case .jpeg:
            #expect(try ExifOrientation.read(jpeg: [UInt8](result.output.data)) == .up)
        default:
            Issue.record("unexpected output format \(result.output.format)")
        }
    }

    /// The reader itself: every spelling of XMP orientation, and the ones it must not take.
    @Test func xmpSpellings() {
        #expect(XMPOrientation.read(Array(#"<rdf:Description tiff:Orientation="6"/>"#.utf8)) == .right)
        #expect(XMPOrientation.read(Array("<x><tiff:Orientation>8</tiff:Orientation></x>".utf8)) == .left)
        #expect(XMPOrientation.read(Array("<x><tiff:Orientation>\n 3 </tiff:Orientation></x>".utf8)) == .down)
        #expect(XMPOrientation.read(Array("tiff:Orientation = '2'".utf8)) == .upMirrored)
        #expect(XMPOrientation.read(Array(#"tiff:Orientation="9""#.utf8)) == nil)
        #expect(XMPOrientation.read(Array(#"tiff:Orientation="16""#.utf8)) == nil)
        #expect(XMPOrientation.read(Array(#"tiff:OrientationX="6""#.utf8)) == nil)
        #expect(XMPOrientation.read(Array("no orientation here".utf8)) == nil)
        // White space inside the quotes, attributes on the element, a bad first occurrence.
        #expect(XMPOrientation.read(Array(#"tiff:Orientation=" 6 ""#.utf8)) == .right)
        #expect(
            XMPOrientation.read(Array(#"<tiff:Orientation rdf:datatype="x">5</tiff:Orientation>"#.utf8))
                == .leftMirrored)
        #expect(
            XMPOrientation.read(Array(#"tiff:Orientation="0" <tiff:Orientation>7</tiff:Orientation>"#.utf8))
                == .rightMirrored)
        #expect(XMPOrientation.read(Array("<tiff:Orientation/>".utf8)) == nil)
        #expect(XMPOrientation.read(Array("tiff:Orientation".utf8)) == nil)
        #expect(XMPOrientation.read([]) == nil)
    }

    // MARK: - Inputs

    /// The encoded input carrying `orientation`, and the upright pixels it stands for.
    static func input(_ carrier: Carrier, _ orientation: Orientation) throws -> (Data, PixelBuffer) {
        switch carrier {
        case .pngExif, .pngExifPrefixed, .pngXMP:
            let upright = Synthetic.make(.edges, width: 120, height: 80, layout: .rgb)
            let stored = ProcessorOrientationTests.store(upright, as: orientation)
            let png = [UInt8](try PNGCodec.encode(stored))
            let chunk: [UInt8] =
                switch carrier {
                case .pngExif: PNGChunks.chunk(type: "eXIf", data: tiff(orientation))
                case .pngExifPrefixed: PNGChunks.chunk(type: "eXIf", data: Array("Exif\0\0".utf8) + tiff(orientation))
                default:
                    PNGChunks.chunk(type: "iTXt", data: Array("XML:com.adobe.xmp\0\0\0\0\0".utf8) + xmp(orientation))
                }
            // Right after IHDR (8-byte signature + 25-byte IHDR chunk).
            return (Data(png[..<33] + chunk + png[33...]), upright)
        case .webpExif, .webpXMP:
            // A lossy WebP as stored; what `orientation` makes of it is the upright image.
            let file = try Processing.fixture("lossy-320x240.webp")
            let stored = try WebPCodec.decode(file, options: DecodeOptions()).pixels
            let wrapped = webpWithMetadata(
                file, width: stored.width, height: stored.height, orientation, xmp: carrier == .webpXMP)
            return (wrapped, orientation.apply(to: stored))
        }
    }

    /// A big-endian TIFF block with one IFD0 entry: Orientation = `orientation`.
    static func tiff(_ orientation: Orientation) -> [UInt8] {
        [
            0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0,
            UInt8(orientation.rawValue), 0, 0,
        ]
            + [0, 0, 0, 0]
    }

    static func xmp(_ orientation: Orientation) -> [UInt8] {
        Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="\(orientation.rawValue)"/>\
            </rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    /// A simple-format WebP (RIFF, `VP8 ` chunk) rewrapped as extended: VP8X with the EXIF (or
    /// XMP) flag, the bitstream chunk, then an `EXIF` (or `XMP `) chunk.
    static func webpWithMetadata(_ simple: Data, width: Int, height: Int, _ orientation: Orientation, xmp useXMP: Bool)
        -> Data
    {
        func le32(_ v: Int) -> [UInt8] {
            [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        }
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }
        func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
            Array(fourCC.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        let bitstream = Array(simple.dropFirst(12))  // "RIFF" size "WEBP"
        let flags: UInt8 = useXMP ? 0x04 : 0x08
        let vp8x = chunk("VP8X", [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1))
        let metadata = useXMP ? chunk("XMP ", xmp(orientation)) : chunk("EXIF", tiff(orientation))
        let body = Array("WEBP".utf8) + vp8x + bitstream + metadata
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }
}

extension PixelBuffer {
    /// RGB of an RGB or RGBA buffer, for comparing outputs that may or may not carry alpha.
    fileprivate var droppingAlpha: PixelBuffer {
        guard layout == .rgba else { return self }
        var out = PixelBuffer(width: width, height: height, layout: .rgb)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { out[x, y, c] = self[x, y, c] }
            }
        }
        return out
    }
}
