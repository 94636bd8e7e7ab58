import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Every WebP in the corpus that `dwebp` decodes (VERIFY.tsv says OK or OK_ANIMATED) decodes here.
@Suite struct WebPTests {
    static let files = CorpusFile.all(in: "webp", extensions: ["webp"])

    /// VERIFY.tsv's codec_status per corpus-relative path.
    static let verified: [String: String] = {
        guard let text = try? String(contentsOf: Corpus.url("VERIFY.tsv"), encoding: .utf8) else { return [:] }
        var out: [String: String] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count > 9 { out[String(fields[0])] = String(fields[9]) }
        }
        return out
    }()

    @Test func corpusIsPresent() {
        #expect(Self.files.count > (Corpus.isExternal ? 50 : 30))
        #expect(!Self.verified.isEmpty)
    }

    @Test(arguments: files)
    func decodesLikeDwebp(_ file: CorpusFile) throws {
        let status = Self.verified[file.testDescription] ?? "?"
        let data = try file.data
        guard status.hasPrefix("OK") else {
            #expect(throws: CodecError.self) { try WebPCodec.decode(data, options: DecodeOptions()) }
            return
        }
        let info = try WebPCodec.readInfo(data)
        let image = try WebPCodec.decode(data, options: DecodeOptions())
        #expect(image.pixels.width == info.width && image.pixels.height == info.height)
        if status == "OK_ANIMATED" {
            #expect(info.frames > 1)
        } else {
            #expect(info.frames == 1)
            #expect(image.pixels.layout == (info.hasAlpha ? .rgba : .rgb))
        }
    }

    @Test func lossyIsRGBAndAlphaIsRGBA() throws {
        let lossy = try WebPCodec.decode(try Corpus.data("webp/metadata-extractor-images/nikon_coolpix_p7000.webp"), options: DecodeOptions())
        #expect(lossy.pixels.layout == .rgb)
        let alpha = try WebPCodec.decode(
            try Corpus.data("webp/metadata-extractor-images/alpha_lossy_1.webp"), options: DecodeOptions())
        #expect(alpha.pixels.layout == .rgba)
        #expect(alpha.pixels.bytes.enumerated().contains { $0.offset % 4 == 3 && $0.element < 255 })
    }

    @Test func animatedDecodesFirstFrame() throws {
        let data = try Corpus.data("webp/misc/sharp_rotating-squares_animated.webp")
        let info = try WebPCodec.readInfo(data)
        #expect(info.frames > 1)
        let image = try WebPCodec.decode(data, options: DecodeOptions())
        #expect(image.pixels.width == info.width && image.pixels.height == info.height)
        #expect(image.pixels.bytes.contains { $0 != 0 })
    }

    @Test func scaledDecodeCoversTheBox() throws {
        let data = try Corpus.data("webp/metadata-extractor-images/nikon_coolpix_p7000.webp")
        let info = try WebPCodec.readInfo(data)
        let box = (width: info.width / 5, height: info.height / 5)
        let image = try WebPCodec.decode(data, options: DecodeOptions(minimumSize: box))
        let expected = ImageCodecs.scaledSize(width: info.width, height: info.height, minimumSize: box, format: .webp)
        #expect(image.pixels.width == expected.width && image.pixels.height == expected.height)
        #expect(image.pixels.width >= box.width && image.pixels.height >= box.height)
        #expect(image.pixels.width < info.width)
        #expect(image.sourceWidth == info.width)
    }

    @Test func aBoxOfTheSourcesAspectIsDecodedAtExactlyItsSize() throws {
        // 2592 x 3888 fitted in 2048 is 1365 x 2048; covering it by one scale rounds the width up to 1366.
        let fitted = ImageCodecs.scaledSize(width: 2592, height: 3888, minimumSize: (1365, 2048), format: .webp)
        #expect(fitted.width == 1365 && fitted.height == 2048)
        let square = ImageCodecs.scaledSize(width: 4000, height: 3000, minimumSize: (256, 256), format: .webp)
        #expect(square.width == 342 && square.height == 256)
        let data = try Corpus.data("webp/metadata-extractor-images/nikon_coolpix_p7000.webp")
        let info = try WebPCodec.readInfo(data)
        let box = (width: Int((Double(info.width) / 3).rounded()), height: Int((Double(info.height) / 3).rounded()))
        let image = try WebPCodec.decode(data, options: DecodeOptions(minimumSize: box))
        #expect(image.pixels.width == box.width && image.pixels.height == box.height)
    }

    @Test func truncatedWebPIsCorrupt() throws {
        let data = try Corpus.data("webp/metadata-extractor-images/nikon_coolpix_p7000.webp")
        for fraction in [0.1, 0.5, 0.99] {
            #expect {
                _ = try WebPCodec.decode(data.prefix(Int(Double(data.count) * fraction)), options: DecodeOptions())
            } throws: { error in
                (error as? CodecError)?.isCorrupt == true
            }
        }
    }
}
