import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs

/// What the boxes and parameter sets of a HEIF file decide before libheif decodes a pixel: coded
/// sizes that disagree with `ispe` (a 108 MP stream behind a 64x64 header), features libheif 1.15
/// lacks (`iden`, `pred`, layers), and limited-range monochrome. Fixtures from
/// TestImages/formats/heif/make-size-fixtures.sh.
@Suite("HEIF structure checks")
struct HEIFStructureTests {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent("formats/heif/\(name)"))
    }

    static func format(_ name: String) -> MediaFormat { name.hasSuffix(".avif") ? .avif : .heic }

    static let understated = ["coded-12000x9000-ispe-64x64.heic", "coded-12000x9000-ispe-64x64.avif"]

    /// libheif would decode the 12000x9000 stream (324 MB of RGB); it is refused from the boxes,
    /// as damaged, by `readInfo` and `decode` alike, and the message gives both sizes.
    @Test(arguments: understated)
    func aStreamLargerThanItsIspeIsRefusedBeforeDecoding(_ name: String) throws {
        let data = try Self.data(name)
        for attempt in ["readInfo", "decode"] {
            do {
                if attempt == "readInfo" {
                    _ = try ImageCodecs.readInfo(data, format: Self.format(name))
                } else {
                    _ = try ImageCodecs.decode(data, format: Self.format(name))
                }
                Issue.record("\(name): \(attempt) succeeded")
            } catch .corrupt(let codec, let message) {
                #expect(codec == "heif-boxes")
                #expect(message.contains("64x64") && message.contains("12000x9000"), "\(message)")
            } catch {
                Issue.record("\(name): \(attempt) threw \(error)")
            }
        }
    }

    /// The same stream with an honest `ispe`: over the budget (102) from the coded size.
    @Test(arguments: understated)
    func anHonestLargeStreamIsOverTheBudget(_ name: String) throws {
        var bytes = [UInt8](try Self.data(name))
        let at = try #require(bytes.indices.dropLast(16).first { bytes[$0..<($0 + 4)] == Array("ispe".utf8)[...] })
        bytes.replaceSubrange((at + 8)..<(at + 16), with: [0, 0, 0x2E, 0xE0, 0, 0, 0x23, 0x28])  // 12000, 9000
        let image = try bytes.withUnsafeBytes { try HEIFPrimaryImage($0) }
        #expect(
            throws: HEIFStructureError.overBudget(
                what: "the primary image (item 1, '\(name.hasSuffix("avif") ? "av01" : "hvc1")')", width: 12000,
                height: 9000)
        ) {
            try image.checkDecodable(pixelBudget: 50_000_000)
        }
        #expect(throws: Never.self) { try image.checkDecodable(pixelBudget: 108_000_000) }
    }

    struct Unsupported: CustomTestStringConvertible, Sendable {
        let name: String
        let feature: String
        var testDescription: String { name }
    }

    /// Decodable by no libheif 1.15 path (or, for `pred`, decoded as flat grey): unsupported,
    /// with the feature named, never "damaged".
    @Test(arguments: [
        Unsupported(name: "iden.heic", feature: "'iden'"),
        Unsupported(name: "iden-of-iden.heic", feature: "'iden'"),
        Unsupported(name: "pred.heic", feature: "'pred' reference"),
        Unsupported(name: "base-avc1.heic", feature: "'avc1', a 'base' reference"),
    ])
    func unsupportedFeaturesAreNamed(_ fixture: Unsupported) throws {
        let data = try Self.data(fixture.name)
        do {
            let image = try ImageCodecs.decode(data, format: .heic)
            Issue.record("\(fixture.name) decoded to \(image.pixels.width)x\(image.pixels.height)")
        } catch .unsupported(let codec, let message) {
            #expect(codec == "libheif")
            #expect(message.contains(fixture.feature), "\(message)")
        } catch {
            Issue.record("\(fixture.name): \(error)")
        }
    }

    /// Flat luma 60 coded in limited range: full range is (60 - 16) * 255 / 219 = 51; libheif
    /// 1.15 alone hands out 60 (washed out). The range comes from the nclx `colr`, or for AV1
    /// with none from the sequence header's `color_range`.
    @Test(arguments: ["mono-limited-nclx.heic", "mono-limited-nclx.avif", "mono-limited-seqhdr.avif"])
    func limitedRangeMonochromeIsExpanded(_ name: String) throws {
        let data = try Self.data(name)
        let image = try ImageCodecs.decode(data, format: Self.format(name))
        let p = image.pixels
        #expect(p.width == 64 && p.height == 48)
        for (x, y) in [(0, 0), (32, 24), (63, 47)] {
            for c in 0..<3 {
                #expect(abs(Int(p[x, y, c]) - 51) <= 2, "\(name) (\(x),\(y)) channel \(c): \(p[x, y, c])")
            }
        }
        let rows = try ImageCodecs.withRows(data, format: Self.format(name)) { try $0.readAll() }
        #expect(rows == p)
    }

    /// Full-range colour images are left as they are: the expansion is for monochrome only.
    @Test func colourImagesAreNotExpanded() throws {
        let data = try Self.data("grid-2x2.avif")
        let image = try ImageCodecs.decode(data, format: .avif)
        // flat-encode's grey: Y 128, Cb = Cr = 128 (limited range), 130 or so in RGB.
        #expect(abs(Int(image.pixels[10, 10, 0]) - 130) <= 3, "\(image.pixels[10, 10, 0])")
    }

    /// A grid of 2x2 tiles of 64x64 cut to 100x120 (and turned a quarter for the HEIC): decoded
    /// at the announced size.
    @Test(arguments: [("grid-2x2-irot90.heic", 120, 100), ("grid-2x2.avif", 100, 120)])
    func gridsDecodeAtTheirOutputSize(_ name: String, _ width: Int, _ height: Int) throws {
        let data = try Self.data(name)
        let info = try ImageCodecs.readInfo(data, format: Self.format(name))
        #expect(info.width == width && info.height == height)
        let image = try ImageCodecs.decode(data, format: Self.format(name))
        #expect(image.pixels.width == width && image.pixels.height == height)
    }

    /// A grid whose output is over the budget is refused from its data, before any tile is decoded.
    @Test func aGridOutputOverTheBudgetIsRefused() throws {
        var options = DecodeOptions()
        options.pixelBudget = 100 * 120 - 1
        #expect(throws: CodecError.pixelBudgetExceeded(width: 100, height: 120, budget: 100 * 120 - 1)) {
            try HEIFCodec.decode(try Self.data("grid-2x2.avif"), options: options)
        }
    }
}
