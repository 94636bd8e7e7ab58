import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs
@testable import ImageEngine

/// JPEG to JPEG through YCbCr planes (`ImageProcessor.transcodePlanes`), held to the RGB route
/// it stands in for: the same sizes, steps and format, pixels within JPEG's own noise.
@Suite struct PlanarTranscodeTests {
    static let planarStep = "resampled as YCbCr 4:2:0 planes (no RGB round trip)"

    /// 4:2:2 at 1/2, progressive 4:2:0 at 5/8 (chroma scaled up by IDCT), the four transposing
    /// and mirroring orientations, a half turn at 3/8, progressive 4:4:4, and a Motion-JPEG 4:2:2
    /// frame at 3/4. The fit is a fraction of the file's long side, so the decode scale is the
    /// same with the bundled files and with the corpus's larger ones (`make conformance`).
    static let cases: [(String, Double)] = [
        ("photos/kodak_pixpro_fz201.jpg", 0.444), ("photos/mei_issue242_progressive.jpg", 0.547),
        ("orientation/Landscape_5.jpg", 0.556), ("orientation/Landscape_6.jpg", 0.556),
        ("orientation/Landscape_7.jpg", 0.556), ("orientation/Landscape_8.jpg", 0.556),
        ("orientation/Landscape_3.jpg", 0.37), ("jpeg/jpeg-decoder/progressive3.jpg", 0.615),
        ("jpeg/jpeg-decoder/mjpeg.jpg", 0.73),
    ]

    static func process(_ data: Data, _ limits: ProcessingLimits, planes: Bool) throws -> ProcessingResult {
        var limits = limits
        limits.resizesPlanes = planes
        return try ImageProcessor().process(data, sniffed: try Sniffer.sniff(data), limits: limits)
    }

    static func decoded(_ image: ProcessedImage) throws -> PixelBuffer {
        try ImageCodecs.decode(image.data, format: image.format).pixels
    }

    /// Mean absolute difference over every byte.
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        Double(zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.bytes.count)
    }

    @Test(arguments: cases)
    func planesMatchTheRGBRoute(_ file: String, _ fraction: Double) throws {
        let data = try Corpus.data(file)
        let sniffed = try Sniffer.sniff(data)
        let long = max(try #require(sniffed.width), try #require(sniffed.height))
        let limits = ProcessingLimits(maxLongSide: Int(Double(long) * fraction), thumbnailSize: 96)
        let planar = try Self.process(data, limits, planes: true)
        let rgb = try Self.process(data, limits, planes: false)
        #expect(planar.steps.contains(Self.planarStep), "\(file): \(planar.steps)")
        #expect(!rgb.steps.contains(Self.planarStep))
        // The same log but for the planar step (and the encoded sizes: the planar chroma is
        // averaged before the resize, not after it, so it keeps a little more detail).
        func sizesOut(_ steps: [String]) -> [String] {
            steps.filter { $0 != Self.planarStep }.map { $0.replacing(/\(\d+ bytes\)/, with: "(N bytes)") }
        }
        #expect(sizesOut(planar.steps) == sizesOut(rgb.steps), "\(file)")
        #expect(planar.warnings == rgb.warnings)
        #expect(planar.output.format == .jpeg && planar.output.quality == rgb.output.quality)
        #expect(planar.output.width == rgb.output.width && planar.output.height == rgb.output.height)
        let (a, b) = (try Self.decoded(planar.output), try Self.decoded(rgb.output))
        #expect(SSIM.luma(a, b) >= 0.98, "\(file): luma SSIM \(SSIM.luma(a, b))")
        #expect(Self.meanDifference(a, b) <= 2.0, "\(file): mean difference \(Self.meanDifference(a, b))")
        let (ta, tb) = (try #require(planar.thumbnail), try #require(rgb.thumbnail))
        #expect(ta.width == tb.width && ta.height == tb.height && ta.format == tb.format)
        let (da, db) = (try Self.decoded(ta), try Self.decoded(tb))
        #expect(SSIM.luma(da, db) >= 0.97, "\(file) thumbnail: luma SSIM \(SSIM.luma(da, db))")
        // q80 at 96 px quantises coarsely: two slightly different sources differ by more there.
        #expect(Self.meanDifference(da, db) <= 4.0, "\(file) thumbnail: mean difference \(Self.meanDifference(da, db))")
    }

    /// Over the byte cap at `quality`, the RGB route's quality search fits it, and says so.
    @Test func overTheByteCapFitsThroughRGB() throws {
        let data = try Corpus.data("photos/mei_issue242_progressive.jpg")
        let result = try Self.process(data, ProcessingLimits(byteCap: 20_000, maxLongSide: 700), planes: true)
        #expect(result.output.data.count <= 20_000)
        #expect(!result.steps.contains(Self.planarStep))
        #expect(result.steps.contains { $0.hasSuffix("over 20000: fitted through RGB") }, "\(result.steps)")
    }

    /// CMYK, a 1/4 decode, a progressive file at 1/8 and grey keep the RGB route.
    @Test(arguments: [
        ("photos/cmyk_canon_eos300d_wikimedia.jpg", 300), ("photos/mei_issue242_progressive.jpg", 256),
        ("photos/mei_issue242_progressive.jpg", 100), ("jpeg/jpeg-decoder/blank_800x280.jpg", 500),
    ])
    func otherJPEGsKeepTheRGBRoute(_ file: String, _ side: Int) throws {
        let data = try Corpus.data(file)
        let result = try Self.process(data, ProcessingLimits(maxLongSide: side), planes: true)
        #expect(!result.passthrough)
        #expect(!result.steps.contains(Self.planarStep), "\(file): \(result.steps)")
    }

    /// A thumbnail-sized fit of a baseline photo decodes at 1/8 from the DC coefficients alone
    /// (`JPEGDCDecoder`), with the orientation turned as the RGB route turns it: the same sizes
    /// and log but for the planar steps, pixels within JPEG's noise of the RGB route's.
    @Test(arguments: [
        ("photos/kodak_pixpro_fz201.jpg", 256), ("photo-1600x1200.jpg", 200), ("large-4000x3000.jpg", 320),
        ("orientation/Landscape_6.jpg", 0), ("orientation/Landscape_7.jpg", 0),
    ])
    func oneEighthReadsOnlyTheDCCoefficients(_ file: String, _ side: Int) throws {
        let data = try file.hasPrefix("orientation/") || file.hasPrefix("photos/")
            ? Corpus.data(file) : Data(contentsOf: Corpus.testImages.appendingPathComponent(file))
        let sniffed = try Sniffer.sniff(data)
        // The orientation files: an eighth of their long side, whatever size the corpus has.
        let long = max(try #require(sniffed.width), try #require(sniffed.height))
        let limits = ProcessingLimits(maxLongSide: side > 0 ? side : long / 8, thumbnailSize: 64)
        let planar = try Self.process(data, limits, planes: true)
        let rgb = try Self.process(data, limits, planes: false)
        // With the own decoding off (PUSHATTACH_JPEG_DECODER=libjpeg) the DC reader takes nothing,
        // and a 1/8 decode goes the RGB way.
        let dcRead = JPEGCodec.ownDecoding
        #expect(planar.steps.contains(Self.planarStep) == dcRead && planar.steps.contains(JPEGCodec.dcNote) == dcRead, "\(planar.steps)")
        #expect(planar.steps.contains { $0.hasPrefix("decoded at 1/8") })
        let extra: Set = [Self.planarStep, JPEGCodec.dcNote]
        func sizesOut(_ steps: [String]) -> [String] {
            steps.filter { !extra.contains($0) }.map { $0.replacing(/\(\d+ bytes\)/, with: "(N bytes)") }
        }
        #expect(sizesOut(planar.steps) == sizesOut(rgb.steps), "\(file)")
        #expect(planar.warnings == rgb.warnings)
        #expect(planar.output.width == rgb.output.width && planar.output.height == rgb.output.height)
        let (a, b) = (try Self.decoded(planar.output), try Self.decoded(rgb.output))
        #expect(SSIM.luma(a, b) >= 0.98, "\(file): luma SSIM \(SSIM.luma(a, b))")
        // The orientation files are flat colours with sharp edges, 112x75 here: chroma
        // resampled apart from luma differs most there (2.9 for Landscape_7, and the same 2.9
        // with libjpeg's planes at 1/8 instead of the DC reader's); photos stay under 1.4.
        #expect(Self.meanDifference(a, b) <= 3.0, "\(file): mean difference \(Self.meanDifference(a, b))")
    }

    /// The planes never hold more than the RGB frame they replace.
    @Test func planesFitOnlyWhenTheyPayAndHoldLess() {
        func fits(_ w: Int, _ h: Int, box: (Int, Int), _ ow: Int, _ oh: Int) -> Bool {
            ImageProcessor.planesFit(
                stored: Size(width: w, height: h), options: DecodeOptions(minimumSize: box),
                output: Size(width: ow, height: oh))
        }
        #expect(fits(4000, 3000, box: (2048, 1536), 2048, 1536))  // 5/8: 2500x1875
        #expect(fits(4000, 3000, box: (256, 192), 256, 192))  // 1/8: the DC planes, counted by workingMemory
        #expect(!fits(4000, 3000, box: (1000, 750), 1000, 750))  // 1/4
        #expect(fits(4000, 3000, box: (1400, 1050), 1400, 1050))  // 3/8: 1500x1125
        #expect(!fits(1000, 1000, box: (130, 130), 130, 130))  // 1/4 = 250: chroma alone is 1.8x the output
    }
}
