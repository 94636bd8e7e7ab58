import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// Every JPEG in the corpus decodes or fails with a clear error; variants TurboJPEG 2.1
/// cannot read (12-bit, lossless) say so.
@Suite struct JPEGCorpusTests {
    static let files = CorpusFile.all(in: "jpeg", extensions: ["jpg", "jpeg"])
    static let photos = CorpusFile.all(in: "photos", extensions: ["jpg", "jpeg"])

    @Test(arguments: files)
    func decodesOrThrowsClearly(_ file: CorpusFile) throws {
        let data = try file.data
        do {
            let image = try JPEGCodec.decode(data, options: DecodeOptions())
            #expect(image.pixels.width == image.sourceWidth && image.pixels.height == image.sourceHeight)
            #expect(image.pixels.layout != .rgba)
        } catch {
            switch error {
            case .corrupt(let codec, let message), .unsupported(let codec, let message):
                #expect(codec == "libjpeg-turbo")
                #expect(!message.isEmpty)
            case .pixelBudgetExceeded: #expect(file.name.contains("giant"))
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    static let highPrecisionOrLossless = files.filter {
        $0.name.contains("x12_") || $0.name.contains("x16_") || $0.name.contains("12.jpg") || $0.name.contains("12bit")
            || $0.name.hasPrefix("lossless") || $0.name.hasPrefix("ls__") || $0.name.contains("sof3")
            || $0.url.path.contains("/lossless")
    }

    @Test(arguments: highPrecisionOrLossless)
    func twelveBitAndLosslessAreUnsupported(_ file: CorpusFile) throws {
        #expect {
            _ = try JPEGCodec.decode(try file.data, options: DecodeOptions())
        } throws: { error in
            guard case .unsupported(_, let message)? = error as? CodecError else { return false }
            return message.contains("bit") || message.contains("lossless") || message.contains("JPEG-LS")
        }
    }

    @Test func knownCasesAreNamed() throws {
        #expect(Self.highPrecisionOrLossless.contains { $0.name == "testorig12.jpg" })
        #expect(Self.highPrecisionOrLossless.contains { $0.name == "sharp_testimgl_lossless_sof3.jpg" })
    }

    @Test(arguments: photos)
    func photoReadInfoMatchesDecode(_ file: CorpusFile) throws {
        let data = try file.data
        let info = try JPEGCodec.readInfo(data)
        #expect(info.frames == 1 && !info.hasAlpha)
        #expect(info.isProgressive != nil)
        #expect(info.colorSpace != nil)
        let image = try JPEGCodec.decode(data, options: DecodeOptions(strict: true))
        #expect(image.sourceWidth == info.width && image.sourceHeight == info.height)
        #expect(image.warnings.isEmpty)
    }

    @Test func progressiveFlagIsRead() throws {
        #expect(try JPEGCodec.readInfo(try Corpus.data("photos/mei_issue242_progressive.jpg")).isProgressive == true)
        #expect(try JPEGCodec.readInfo(try Corpus.data("photos/kodak_pixpro_fz201.jpg")).isProgressive == false)
    }

    @Test func grayscaleDecodesToGray() throws {
        let data = try Corpus.data("jpeg/libjpeg-turbo/testimggray.jpg")
        #expect(try JPEGCodec.readInfo(data).colorSpace == "gray")
        #expect(try JPEGCodec.decode(data, options: DecodeOptions()).pixels.layout == .gray)
    }

    @Test func arithmeticCodedDecodes() throws {
        let image = try JPEGCodec.decode(try Corpus.data("jpeg/libjpeg-turbo/testimgari.jpg"), options: DecodeOptions())
        #expect(image.pixels.width == 227)
    }

    @Test(arguments: photos.prefix(6))
    func scaledDecodeCoversTheBox(_ file: CorpusFile) throws {
        let data = try file.data
        let info = try JPEGCodec.readInfo(data)
        let image = try JPEGCodec.decode(data, options: DecodeOptions(minimumSize: (256, 256)))
        #expect(image.pixels.width >= 256 && image.pixels.height >= 256)
        #expect(image.pixels.width < info.width)
        let expected = ImageCodecs.scaledSize(
            width: info.width, height: info.height, minimumSize: (256, 256), format: .jpeg)
        #expect(image.pixels.width == expected.width && image.pixels.height == expected.height)
        // The next smaller factor would not cover the box: the smallest covering one was picked.
        let eighth = ((info.width + 7) / 8, (info.height + 7) / 8)
        if eighth.0 >= 256 && eighth.1 >= 256 {
            #expect(image.pixels.width == eighth.0 && image.pixels.height == eighth.1)
        }
    }

    private func size(width: Int, height: Int, minimumSize: (width: Int, height: Int)?, format: MediaFormat) -> [Int] {
        let s = ImageCodecs.scaledSize(width: width, height: height, minimumSize: minimumSize, format: format)
        return [s.width, s.height]
    }

    @Test func scaledSizePicksTheSmallestCoveringFactor() {
        #expect(size(width: 4000, height: 3000, minimumSize: (256, 256), format: .jpeg) == [500, 375])
        #expect(size(width: 4000, height: 3000, minimumSize: (1000, 1000), format: .jpeg) == [1500, 1125])
        #expect(size(width: 100, height: 80, minimumSize: (256, 256), format: .jpeg) == [100, 80])
        #expect(size(width: 4000, height: 3000, minimumSize: nil, format: .jpeg) == [4000, 3000])
        #expect(size(width: 4000, height: 3000, minimumSize: (256, 256), format: .png) == [4000, 3000])
    }

    @Test func iccChunksAreJoinedInOrder() throws {
        let ordered = try JPEGCodec.decode(
            try Corpus.data("jpeg/jpeg-decoder/icc_chunk_order.jpeg"), options: DecodeOptions())
        let profile = try #require(ordered.iccProfile)
        // 254 shuffled chunks, each holding its own sequence number as its one byte.
        #expect(profile == (1...254).map { UInt8($0) })

        let missing = try JPEGCodec.decode(
            try Corpus.data("jpeg/jpeg-decoder/icc_missing_chunk.jpeg"), options: DecodeOptions())
        #expect(missing.iccProfile == nil)
        #expect(missing.warnings.contains { $0.contains("ICC") })
    }
}
