import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs

/// The DC-only reader at 1/8 (`JPEGDCDecoder`, `JPEGCodec.dcPlanes`) held to libjpeg's own 1/8
/// decode: the luma byte for byte, the chroma within a level, and nothing taken that libjpeg
/// would warn about.
@Suite struct JPEGDCDecoderTests {
    /// The fixtures of `TestImages/codecs/make-dc-fixtures.sh` (203x149, cut from
    /// photo-1600x1200.jpg) and two files whose 1/8 is their thumbnail's scale.
    static let baseline = [
        "codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/restart-two-rows-444.jpg", "codecs/dc/optimized-422.jpg",
        "codecs/dc/sampled-440.jpg", "codecs/dc/quality-100-420.jpg", "photo-1600x1200.jpg", "large-4000x3000.jpg",
    ]

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Corpus.testImages.appendingPathComponent(name))
    }

    /// A box that makes every file decode at 1/8.
    static let eighth = DecodeOptions(minimumSize: (1, 1))

    /// libjpeg's planar decode at 1/8 (`JPEGRowDecoder.planar`, the raw components), and its warnings.
    static func libjpegPlanes(_ data: Data) throws -> (y: PixelBuffer, cb: PixelBuffer, cr: PixelBuffer, warnings: Int)? {
        try data.withUnsafeBytes { bytes in
            let header = try JPEGRowDecoder(header: bytes, strict: false)
            guard let rows = try JPEGRowDecoder.planar(header, options: eighth), let planes = rows.planes else {
                return nil
            }
            let y = try rows.readAll()
            return (y, planes.cb, planes.cr, rows.warningCount)
        }
    }

    static func dcPlanes(_ data: Data) throws -> (luma: DecodedImage, cb: PixelBuffer, cr: PixelBuffer)? {
        try data.withUnsafeBytes { bytes in
            try JPEGCodec.dcPlanes(bytes, header: JPEGRowDecoder(header: bytes, strict: false), options: eighth)
        }
    }

    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        Double(zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(a.bytes.count, 1))
    }

    /// Restart markers after every MCU and every two MCU rows, 4:2:0, 4:4:4, 4:2:2, 4:4:0,
    /// optimised tables, quality 100 (long codes, wide values), odd sizes: the luma is libjpeg's.
    @Test(.enabled(if: JPEGCodec.ownDecoding), arguments: baseline)
    func lumaIsLibjpegsAndChromaWithinALevel(_ name: String) throws {
        let data = try Self.fixture(name)
        let dc = try #require(try Self.dcPlanes(data), "\(name): the DC reader refused it")
        let reference = try #require(try Self.libjpegPlanes(data))
        #expect(reference.warnings == 0)
        #expect(dc.luma.pixels.width == reference.y.width && dc.luma.pixels.height == reference.y.height)
        #expect(dc.luma.pixels.bytes == reference.y.bytes, "\(name): luma differs from libjpeg's 1/8")
        #expect(dc.luma.notes == [JPEGCodec.dcNote])
        for (ours, theirs) in [(dc.cb, reference.cb), (dc.cr, reference.cr)] {
            #expect(ours.width == theirs.width && ours.height == theirs.height)
            // 4:4:4 at 1/8 is 1x1 IDCTs in libjpeg too (the same samples, the same averaging);
            // 4:2:0 and the rest take each chroma block's DC where libjpeg IDCTs it 2x2 and the
            // collector averages the four back: the mean of a 2x2 IDCT is its DC, rounding aside.
            #expect(Self.meanDifference(ours, theirs) <= 1.0, "\(name): chroma \(Self.meanDifference(ours, theirs))")
        }
    }

    /// Greyscale: the reader takes it (the plane is libjpeg's greyscale 1/8 decode), though
    /// `dcPlanes` wants three components.
    @Test func greyIsReadAndLeftToLibjpegByThePlanes() throws {
        let data = try Self.fixture("codecs/dc/gray.jpg")
        let expected = try ImageCodecs.decode(data, format: .jpeg, options: Self.eighth).pixels
        let plane = data.withUnsafeBytes { bytes -> PixelBuffer? in
            guard var reader = JPEGDCDecoder(bytes), reader.geometry.count == 1 else { return nil }
            let g = reader.geometry[0]
            var out = PixelBuffer(width: Int(g.width), height: Int(g.height), layout: .gray)
            var row = [UInt8](repeating: 0, count: Int(g.padded_width))
            for y in 0..<Int(g.height) {
                let lines = row.withUnsafeMutableBufferPointer { buffer -> Int? in
                    var pointers: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress]
                    return reader.readGroup(&pointers)
                }
                guard lines == 1 else { return nil }
                out.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: y * Int(g.width)).update(from: row, count: Int(g.width)) }
            }
            return reader.finish() ? out : nil
        }
        #expect(try #require(plane).bytes == expected.bytes)
        #expect(try Self.dcPlanes(data) == nil)
    }

    /// Arithmetic coding, progressive, 4:1:1 (the collector's refusal) and a cut file go to
    /// libjpeg.
    @Test(arguments: ["codecs/dc/arithmetic.jpg", "codecs/dc/progressive.jpg", "codecs/dc/sampled-411.jpg", "truncated.jpg"])
    func othersAreLeftToLibjpeg(_ name: String) throws {
        let data = try Self.fixture(name)
        #expect(try Self.dcPlanes(data) == nil, "\(name)")
        if name.contains("arithmetic") || name.contains("progressive") {
            #expect(data.withUnsafeBytes { JPEGDCDecoder($0) } == nil)
        }
    }

    /// Damage, differentially: each file cut short, bytes of its entropy-coded data changed,
    /// markers and fill dropped in. Whenever the DC reader takes a damaged file, libjpeg's 1/8
    /// decode of it raised no warning and gave the same luma; everything else is refused (for
    /// libjpeg to decode and report). Nothing crashes. Deterministic (a fixed LCG).
    @Test(
        .enabled(if: JPEGCodec.ownDecoding),
        arguments: ["codecs/dc/restart-every-mcu-420.jpg", "codecs/dc/quality-100-420.jpg", "codecs/dc/optimized-422.jpg"])
    func damageIsTakenOnlyWhenLibjpegSeesNone(_ name: String) throws {
        let original = [UInt8](try Self.fixture(name))
        let scanStart = try #require(Self.scanStart(original))
        var taken = 0, refused = 0
        let variants = JPEGDamage.variants(of: original, scanStart: scanStart, count: 150, seed: 0x9E37_79B9_7F4A_7C15)
        for (trial, bytes) in variants.enumerated() {
            let data = Data(bytes)
            guard let dc = try? Self.dcPlanes(data) else {
                refused += 1
                continue
            }
            taken += 1
            let reference = try #require(try Self.libjpegPlanes(data), "trial \(trial): libjpeg refused what the DC reader took")
            #expect(reference.warnings == 0, "trial \(trial): taken, but libjpeg warned")
            #expect(dc.luma.pixels.bytes == reference.y.bytes, "trial \(trial): taken, luma differs")
        }
        // Both sides of the line are exercised: some damage leaves a valid stream (a flipped
        // bit in a value), most does not.
        #expect(taken > 0 && refused > 0, "taken \(taken), refused \(refused)")
    }

    /// The first byte after the SOS segment.
    static func scanStart(_ bytes: [UInt8]) -> Int? {
        guard let sos = try? JPEGSegments.read(bytes).last, sos.marker == 0xDA else { return nil }
        return sos.payloadRange.upperBound
    }

    /// Huffman tables libjpeg refuses are refused: an all-ones code, a DC symbol over 15.
    @Test func badTablesAreRefused() {
        // Two codes of length 1 fill it; a third would be all ones, past the length.
        #expect(JPEGDCDecoder.HuffmanTable(counts: [0, 3] + [Int](repeating: 0, count: 15), symbols: [0, 1, 2], isDC: false) == nil)
        #expect(JPEGDCDecoder.HuffmanTable(counts: [0, 2] + [Int](repeating: 0, count: 15), symbols: [0, 1], isDC: false) == nil)
        #expect(JPEGDCDecoder.HuffmanTable(counts: [0, 0, 3] + [Int](repeating: 0, count: 14), symbols: [0, 1, 16], isDC: true) == nil)
        #expect(JPEGDCDecoder.HuffmanTable(counts: [0, 0, 3] + [Int](repeating: 0, count: 14), symbols: [0, 1, 15], isDC: true) != nil)
    }

    /// The 1x1 IDCT's range limit, as libjpeg's table gives it: clamped near the range,
    /// wrapped (masked to 10 bits) far outside it.
    @Test func sampleIsLibjpegsRangeLimit() {
        #expect(JPEGDCDecoder.sample(dc: 0, quant: 8) == 128)
        #expect(JPEGDCDecoder.sample(dc: -16, quant: 8) == 112)
        #expect(JPEGDCDecoder.sample(dc: 200, quant: 8) == 255)  // 328: clamped
        #expect(JPEGDCDecoder.sample(dc: -200, quant: 8) == 0)  // -72 - 128: clamped
        #expect(JPEGDCDecoder.sample(dc: 1020, quant: 8) == 128 + 1020 - 1024)  // masked: wraps
    }
}
