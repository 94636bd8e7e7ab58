import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs
@testable import ImageEngine

/// The streaming engine against the full-frame one: `RowResizer` over rows must give the bits
/// `Resizer.resize` gives over the same decoded frame, and `process` must write what the old
/// decode-whole-then-resize route wrote.
@Suite struct StreamingEngineTests {
    /// A resize case in stored terms: source size and the stored target (before orientation).
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var source: Size
        var stored: Size
        var description: String { "\(name) \(source) -> \(stored)" }
    }

    static let cases: [Case] = [
        Case(name: "shrink both", source: Size(width: 97, height: 61), stored: Size(width: 31, height: 20)),
        Case(name: "box 2", source: Size(width: 70, height: 66), stored: Size(width: 17, height: 16)),
        Case(name: "box 3", source: Size(width: 100, height: 97), stored: Size(width: 16, height: 16)),
        Case(name: "box 11", source: Size(width: 360, height: 355), stored: Size(width: 16, height: 16)),
        Case(name: "box 11 across, rows kept", source: Size(width: 360, height: 20), stored: Size(width: 16, height: 20)),
        Case(name: "box across, rows grow", source: Size(width: 400, height: 10), stored: Size(width: 16, height: 30)),
        Case(name: "box 3 down, width kept", source: Size(width: 20, height: 100), stored: Size(width: 20, height: 16)),
        Case(name: "rows only, shrink", source: Size(width: 40, height: 100), stored: Size(width: 40, height: 30)),
        Case(name: "rows only, grow", source: Size(width: 40, height: 10), stored: Size(width: 40, height: 33)),
        Case(name: "width only, shrink", source: Size(width: 100, height: 40), stored: Size(width: 30, height: 40)),
        Case(name: "width only, grow", source: Size(width: 10, height: 40), stored: Size(width: 33, height: 40)),
        Case(name: "upscale", source: Size(width: 12, height: 9), stored: Size(width: 31, height: 23)),
        Case(name: "wider, shorter", source: Size(width: 10, height: 50), stored: Size(width: 25, height: 20)),
        Case(name: "narrower, taller", source: Size(width: 50, height: 10), stored: Size(width: 20, height: 25)),
        Case(name: "exact size", source: Size(width: 23, height: 17), stored: Size(width: 23, height: 17)),
        Case(name: "1xN", source: Size(width: 1, height: 37), stored: Size(width: 1, height: 9)),
        Case(name: "Nx1", source: Size(width: 37, height: 1), stored: Size(width: 9, height: 1)),
        Case(name: "1xN grows", source: Size(width: 1, height: 7), stored: Size(width: 3, height: 19)),
        Case(name: "to 1x1", source: Size(width: 33, height: 21), stored: Size(width: 1, height: 1)),
    ]

    /// Gray, RGB, RGBA with every alpha 255, and RGBA with real (and zero) alpha.
    enum Pixels: String, CaseIterable, Sendable { case gray, rgb, opaqueRGBA, translucentRGBA }

    static func image(_ pixels: Pixels, _ size: Size) -> PixelBuffer {
        let layout: PixelBuffer.Layout = pixels == .gray ? .gray : pixels == .rgb ? .rgb : .rgba
        var image = Synthetic.make(.noise, width: size.width, height: size.height, layout: layout, seed: 7)
        if pixels == .translucentRGBA {
            // Every third row translucent (alpha 0 included), the others opaque.
            for y in 0..<size.height where y % 3 == 1 {
                for x in 0..<size.width { image[x, y, 3] = UInt8((x * 37 + y * 11) % 256) }
            }
        }
        return image
    }

    enum Delivery: String, CaseIterable, Sendable { case frame, chunked }

    static func source(_ image: PixelBuffer, _ delivery: Delivery) -> any ImageRowSource {
        switch delivery {
        case .frame: FrameRowSource(DecodedImage(pixels: image, sourceWidth: image.width, sourceHeight: image.height))
        case .chunked: ChunkedRowSource(image)
        }
    }

    /// Byte for byte, for every layout, orientation and delivery. Translucent RGBA too: the
    /// full-frame resizer premultiplies such an image entirely, the stream premultiplies every
    /// translucent row and leaves opaque rows alone, which is the same (see the next test).
    @Test(arguments: cases, Pixels.allCases)
    func rowResizerMatchesResizer(_ c: Case, _ pixels: Pixels) throws {
        let image = Self.image(pixels, c.source)
        let rows = RowResizer(), frame = Resizer()
        for orientation in Orientation.allCases {
            let upright = orientation.swapsDimensions ? Size(width: c.stored.height, height: c.stored.width) : c.stored
            let expected = frame.resize(image, to: upright, orientation: orientation)
            for delivery in Delivery.allCases {
                let out = try rows.resize(Self.source(image, delivery), to: upright, orientation: orientation)
                #expect(out.pixels.width == upright.width && out.pixels.height == upright.height)
                #expect(out.pixels.layout == image.layout)
                #expect(out.pixels.bytes == expected.bytes, "\(c) \(pixels) \(orientation) \(delivery)")
                #expect(out.opaque == AlphaChannel.isOpaque(image), "\(c) \(pixels) \(delivery)")
            }
        }
    }

    /// The stream premultiplies every RGBA row it resamples, the full-frame resizer only
    /// images with a translucent pixel: equal because a pixel of alpha 255 premultiplies and
    /// unpremultiplies to itself, for every colour value.
    @Test func opaquePixelsPremultiplyToThemselves() {
        for c in 0...255 {
            let v = UInt32(c)
            #expect(Premultiply.mul255(v, 255) == UInt8(c))
            #expect(Premultiply.div255(v, 255) == UInt8(c))
        }
        var row = [UInt8](repeating: 255, count: 256 * 4)
        for c in 0..<256 { row[c * 4] = UInt8(c); row[c * 4 + 1] = UInt8(255 - c); row[c * 4 + 2] = UInt8(c / 2) }
        var out = [UInt8](repeating: 0, count: row.count)
        Premultiply.premultiply(row, width: 256, height: 1, stride: row.count, into: &out)
        #expect(out == row)
        out.withUnsafeMutableBufferPointer { Premultiply.unpremultiply($0.baseAddress!, count: 256) }
        #expect(out == row)
    }

    /// `opaque` is decided from every row the decoder hands out, including rows no output
    /// pixel needs (here the only translucent pixel is in the last source row).
    @Test func opacityCountsEveryRow() throws {
        var image = Self.image(.opaqueRGBA, Size(width: 64, height: 64))
        #expect(try RowResizer().resize(ChunkedRowSource(image), to: Size(width: 16, height: 16)).opaque)
        image[5, 63, 3] = 254
        let out = try RowResizer().resize(ChunkedRowSource(image), to: Size(width: 16, height: 16))
        #expect(!out.opaque)
        #expect(out.pixels.bytes == Resizer().resize(image, to: Size(width: 16, height: 16)).bytes)
    }

    /// A reused instance (scratch from a bigger image still around) gives the same bits.
    @Test func reusedRowResizerIsStable() throws {
        let rows = RowResizer()
        let big = Self.image(.rgb, Size(width: 300, height: 200)), small = Self.image(.rgb, Size(width: 40, height: 30))
        _ = try rows.resize(ChunkedRowSource(big), to: Size(width: 120, height: 80), orientation: .right)
        let again = try rows.resize(ChunkedRowSource(small), to: Size(width: 13, height: 9))
        #expect(again.pixels.bytes == Resizer().resize(small, to: Size(width: 13, height: 9)).bytes)
    }

    /// The resizer reads every row, so damage the decoder reports at the end is seen.
    @Test func everyRowIsRead() throws {
        let image = Self.image(.rgb, Size(width: 50, height: 90))
        let source = ChunkedRowSource(image, damage: ["cut short"])
        _ = try RowResizer().resize(source, to: Size(width: 10, height: 10))
        #expect(source.rowsRead == 90)
        #expect(source.damage == ["cut short"])
    }

    /// A source that ends early is an error, not a half-made image.
    @Test func shortSourceThrows() {
        final class Short: ImageRowSource {
            var width: Int { 20 }
            var height: Int { 20 }
            var layout: PixelBuffer.Layout { .gray }
            var sourceWidth: Int { 20 }
            var sourceHeight: Int { 20 }
            var iccProfile: [UInt8]? { nil }
            var warnings: [String] { [] }
            var damage: [String] { [] }
            var workingMemory: Int { 0 }
            private(set) var rowsRead = 0
            func readRows(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(CodecError) -> Int {
                guard rowsRead < 7 else { return 0 }
                rowsRead += 1
                return 1
            }
        }
        #expect(throws: CodecError.self) { try RowResizer().resize(Short(), to: Size(width: 5, height: 5)) }
    }

    /// Memory: a ring of rows and a few rows, never the source frame. A 2400×3600 stored
    /// source (8.6 M samples) to a 1024-wide upright output, orientation 6.
    @Test func scratchIsAFewRowsNotTheFrame() throws {
        let source = GeneratedRowSource(width: 2400, height: 3600, layout: .rgb)
        let rows = RowResizer()
        let out = try rows.resize(source, to: Size(width: 1024, height: 683), orientation: .right)
        #expect(out.pixels.width == 1024 && out.pixels.height == 683)
        let rowBytes = 2400 * 3
        // 7 ring rows... for 3600 -> 1024: taps = 23; plus the source row, sums (4×), Float rows
        // (two for the horizontal pass, 4 bytes a sample: 8 row-bytes).
        #expect(rows.scratchBytes < 52 * rowBytes, "scratch \(rows.scratchBytes) bytes")
        let estimate = RowResizer.workingMemory(
            source: Size(width: 2400, height: 3600), channels: 3, to: Size(width: 683, height: 1024))
        #expect(estimate >= rows.scratchBytes * 2 / 3 + out.pixels.bytes.count)
        #expect(estimate < 2400 * 3600 * 3 / 4)
    }

    @Test func workingMemoryCoversTheOutputAndTheDecoder() {
        let limits = ProcessingLimits(thumbnailSize: 256)
        let progressive = ImageProcessor.workingMemory(width: 4000, height: 3000, format: .jpeg, limits: limits)
        let baseline = ImageProcessor.workingMemory(
            width: 4000, height: 3000, format: .jpeg, limits: limits, holdsFrame: false)
        // The 2048×1536 RGBA output, a shrunk attempt and the encoder's bytes at least, yet
        // below the full decoded frame, which a streamed decode never holds.
        #expect(baseline >= 2048 * 1536 * 4 * 2)
        #expect(baseline < 4000 * 3000 * 4)
        // A progressive JPEG's coefficients are held whatever the scale.
        #expect(progressive >= baseline + 4000 * 3000 * 2)
        let small = ImageProcessor.workingMemory(
            width: 640, height: 480, format: .png, limits: ProcessingLimits(), holdsFrame: false)
        #expect(small < 8_000_000)
        #expect(ImageProcessor.workingMemory(width: 1 << 40, height: 1 << 40, format: .png, limits: limits) > 1 << 50)
    }
}
