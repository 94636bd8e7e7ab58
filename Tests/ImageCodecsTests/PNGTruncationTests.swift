import Foundation
import ImageCodecs
import TestSupport
import Testing

/// A PNG cut inside its image data: the size comes from IHDR, the rows that are there decode,
/// the rest are zeros, and `damage` says where the file was cut (as for a JPEG cut in its scan).
/// `opaque-300x200.png` (267x200) has three IDAT chunks (at bytes 33, 32,813 and 65,593).
@Suite struct PNGTruncationTests {
    static func whole() throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent("opaque-300x200.png"))
    }

    /// Cuts in the first IDAT (which the sniffer reads up to), the second, and before IEND.
    @Test(arguments: [20_000, 50_000, 82_599])
    func cutInImageDataDecodesTheRowsThatAreThere(_ length: Int) throws {
        let whole = try Self.whole()
        let reference = try PNGCodec.decode(whole, options: DecodeOptions()).pixels
        let cut = whole.prefix(length)
        let info = try PNGCodec.readInfo(cut)
        #expect(info.width == 267 && info.height == 200)
        let image = try PNGCodec.decode(cut, options: DecodeOptions())
        #expect(image.pixels.width == 267 && image.pixels.height == 200 && image.pixels.layout == reference.layout)
        let damage = try #require(image.damage.first, "a cut file must report damage")
        #expect(damage.hasPrefix("PNG file truncated"), "\(damage)")
        #expect(image.warnings.contains(damage))
        #expect(throws: CodecError.self) { _ = try PNGCodec.decode(cut, options: DecodeOptions(strict: true)) }
        // The rows before the cut are the whole file's; the rest are zeros.
        let rowBytes = reference.width * reference.layout.channels
        var same = 0
        while same < reference.height,
            (0..<rowBytes).allSatisfy({
                image.pixels.bytes[same * image.pixels.stride + $0] == reference.bytes[same * reference.stride + $0]
            })
        {
            same += 1
        }
        print("PNG cut at \(length) of \(whole.count) bytes: \(same) of 200 rows as in the whole file; \(damage)")
        if length == 82_599 {
            #expect(same == 200, "only IEND is missing: every row is there")
        } else {
            #expect(same > 200 * length / whole.count / 2, "too few rows kept: \(same)")
            #expect(same < 200)
            let last = (reference.height - 1) * image.pixels.stride
            #expect(image.pixels.bytes[last..<(last + rowBytes)].allSatisfy { $0 == 0 })
        }
    }

    /// Row by row (the engine's way) gives the same pixels and damage as the whole decode.
    @Test func rowByRowMatchesTheWholeDecode() throws {
        let cut = try Self.whole().prefix(50_000)
        let whole = try PNGCodec.decode(cut, options: DecodeOptions())
        let (pixels, damage) = try ImageCodecs.withRows(cut, format: .png, options: DecodeOptions()) { rows in
            var out = PixelBuffer(width: rows.width, height: rows.height, layout: rows.layout)
            let rowStride = out.stride
            try out.withUnsafeMutableBytes { buffer in
                for y in stride(from: 0, to: rows.height, by: 7) {
                    _ = try rows.readRows(
                        into: buffer.baseAddress! + y * rowStride, stride: rowStride, count: min(7, rows.height - y))
                }
            }
            return (out, rows.damage)
        }
        #expect(pixels.bytes == whole.pixels.bytes)
        #expect(damage == whole.damage)
    }

    /// An interlaced file cut in its data keeps the passes that completed, with damage.
    @Test func interlacedCutIsDamage() throws {
        let data = try Corpus.data("pngsuite/basi6a08.png")
        let image = try PNGCodec.decode(data.prefix(data.count - 200), options: DecodeOptions())
        #expect(image.pixels.width == 32 && image.pixels.height == 32)
        #expect(image.damage.first?.contains("interlace passes") == true, "\(image.damage)")
    }

    /// A cut before any image data is still an error: there is nothing to show.
    @Test func cutBeforeImageDataIsRefused() throws {
        let whole = try Self.whole()
        #expect(throws: CodecError.self) { _ = try PNGCodec.decode(whole.prefix(40), options: DecodeOptions()) }
    }
}
