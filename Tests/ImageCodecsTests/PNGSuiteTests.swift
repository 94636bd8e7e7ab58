import Foundation
import ImageCodecs
import TestSupport
import Testing

/// PngSuite conformance: valid files decode, `x*` files fail with `.corrupt`.
@Suite struct PNGSuiteTests {
    static let valid = CorpusFile.all(in: "pngsuite", extensions: ["png"])
        .filter { !$0.name.hasPrefix("x") && !$0.url.path.contains("/extra/") }
    static let invalid = CorpusFile.all(in: "pngsuite", extensions: ["png"])
        .filter { $0.name.hasPrefix("x") && !$0.url.path.contains("/extra/") }

    @Test func corpusIsPresent() {
        #expect(Self.valid.count > 150)
        #expect(Self.invalid.count >= 14)
    }

    @Test(arguments: valid)
    func validFileDecodes(_ file: CorpusFile) throws {
        let data = try file.data
        let info = try PNGCodec.readInfo(data)
        let image = try PNGCodec.decode(data, options: DecodeOptions())
        #expect(image.pixels.width == info.width && image.pixels.height == info.height)
        #expect(image.pixels.layout.hasAlpha == info.hasAlpha)
        // Colour type 0/4 without alpha stays grey; palette and RGB never come out grey.
        let colourType = data[data.startIndex + 25]
        if colourType == 0, !info.hasAlpha { #expect(image.pixels.layout == .gray) }
        if colourType == 2 || colourType == 3 { #expect(image.pixels.layout != .gray) }
        if colourType == 4 || colourType == 6 { #expect(image.pixels.layout == .rgba) }
    }

    @Test(arguments: valid)
    func reencodeIsBitExact(_ file: CorpusFile) throws {
        let first = try PNGCodec.decode(try file.data, options: DecodeOptions())
        let png = try PNGCodec.encode(first.pixels)
        let second = try PNGCodec.decode(png, options: DecodeOptions())
        #expect(second.pixels == first.pixels)
    }

    @Test(arguments: invalid)
    func invalidFileIsCorrupt(_ file: CorpusFile) throws {
        #expect {
            _ = try PNGCodec.decode(try file.data, options: DecodeOptions())
        } throws: { error in
            (error as? CodecError)?.isCorrupt == true
        }
    }

    @Test func paletteWithTransparencyDecodesToRGBA() throws {
        let image = try PNGCodec.decode(try Corpus.data("pngsuite/tbbn3p08.png"), options: DecodeOptions())
        #expect(image.pixels.layout == .rgba)
        #expect(image.pixels.bytes.enumerated().contains { $0.offset % 4 == 3 && $0.element == 0 })
    }

    @Test func interlacedMatchesNonInterlaced() throws {
        let interlaced = try PNGCodec.decode(try Corpus.data("pngsuite/basi2c08.png"), options: DecodeOptions())
        let plain = try PNGCodec.decode(try Corpus.data("pngsuite/basn2c08.png"), options: DecodeOptions())
        #expect(interlaced.pixels == plain.pixels)
    }

    @Test func sixteenBitIsReducedToEightBit() throws {
        let image = try PNGCodec.decode(try Corpus.data("pngsuite/basn6a16.png"), options: DecodeOptions())
        #expect(image.pixels.layout == .rgba)
        #expect(image.pixels.width == 32)
    }

    @Test func apngDecodesDefaultImageAndCountsFrames() throws {
        let data = try Corpus.data("pngsuite/extra/apng_basic_f20.png")
        let info = try PNGCodec.readInfo(data)
        #expect(info.frames > 1)
        let image = try PNGCodec.decode(data, options: DecodeOptions())
        #expect(image.pixels.width == info.width)
    }

    @Test(arguments: CorpusFile.all(in: "pngsuite/extra", extensions: ["png"]).filter { !$0.name.hasPrefix("65536") })
    func extraFilesGiveAResult(_ file: CorpusFile) throws {
        do {
            let image = try PNGCodec.decode(try file.data, options: DecodeOptions())
            #expect(image.pixels.pixelCount > 0)
        } catch let error as CodecError {
            #expect(error.isCorrupt || error.isUnsupported, "\(error)")
        }
    }
}
