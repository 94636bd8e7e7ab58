import Foundation
import ImageCodecs
import MediaTypes
import TestSupport
import Testing

/// Hostile input: oversized headers, truncated files, the broken corpus. Every case must end
/// in a result or a `CodecError`, never a trap or a hang.
@Suite struct RobustnessTests {
    @Test func hugePNGIsRefusedBeforeDecoding() throws {
        let data = try Corpus.data("pngsuite/extra/65536-uint32-limit.png")
        #expect(throws: CodecError.self) { try PNGCodec.decode(data, options: DecodeOptions()) }
        do {
            _ = try PNGCodec.decode(data, options: DecodeOptions())
        } catch {
            #expect(error.isBudget, "\(error)")
        }
    }

    @Test func giantJPEGIsRefusedBeforeDecoding() throws {
        let data = try Corpus.data("jpeg/misc/sharp_giant-image_20000x14000.jpg")
        let info = try JPEGCodec.readInfo(data)
        #expect(info.width == 20_000 && info.height == 14_000)
        #expect(throws: CodecError.pixelBudgetExceeded(width: 20_000, height: 14_000, budget: 50_000_000)) {
            try JPEGCodec.decode(data, options: DecodeOptions())
        }
    }

    @Test func budgetAppliesToEveryCodec() throws {
        let tight = DecodeOptions(pixelBudget: 100)
        #expect(throws: CodecError.pixelBudgetExceeded(width: 227, height: 149, budget: 100)) {
            try JPEGCodec.decode(try Corpus.data("jpeg/libjpeg-turbo/testorig.jpg"), options: tight)
        }
        #expect(throws: CodecError.pixelBudgetExceeded(width: 32, height: 32, budget: 100)) {
            try PNGCodec.decode(try Corpus.data("pngsuite/basn2c08.png"), options: tight)
        }
        let webp = try Corpus.data("webp/metadata-extractor-images/nikon_coolpix_p7000.webp")
        let info = try WebPCodec.readInfo(webp)
        #expect(throws: CodecError.pixelBudgetExceeded(width: info.width, height: info.height, budget: 100)) {
            try WebPCodec.decode(webp, options: tight)
        }
    }

    @Test func emptyAndZeroSizedInputsThrow() {
        for format in [MediaFormat.jpeg, .png, .webp] {
            #expect(throws: CodecError.self) {
                try ImageCodecs.decode(Data(), format: format, options: DecodeOptions())
            }
        }
        #expect(throws: CodecError.self) {
            try ImageCodecs.decode(Data([1, 2, 3]), format: .gif, options: DecodeOptions())
        }
    }

    static let truncationSources =
        CorpusFile.all(in: "photos", extensions: ["jpg"])
        + CorpusFile.all(in: "pngsuite", extensions: ["png"]).filter {
            !$0.name.hasPrefix("x") && !$0.url.path.contains("/extra/")
        }

    /// Cut at 10%, 50% and 99%: strict decoding throws `.corrupt`; lenient decoding may return
    /// a filled image (grey JPEG rows, black PNG rows), and then it must say so in `warnings`
    /// and `damage`.
    @Test(arguments: truncationSources)
    func truncatedFilesFail(_ file: CorpusFile) throws {
        let data = try file.data
        let format: MediaFormat = file.url.pathExtension == "png" ? .png : .jpeg
        for fraction in [0.10, 0.50, 0.99] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            do {
                _ = try ImageCodecs.decode(cut, format: format, options: DecodeOptions(strict: true))
                Issue.record("\(Int(fraction * 100))% of \(file.name) decoded in strict mode")
            } catch {
                #expect(error.isCorrupt, "\(Int(fraction * 100))%: \(error)")
            }
            do {
                let lenient = try ImageCodecs.decode(cut, format: format, options: DecodeOptions())
                #expect(!lenient.warnings.isEmpty, "\(Int(fraction * 100))% decoded leniently with no warning")
                if format == .png { #expect(lenient.isDamaged, "\(Int(fraction * 100))% decoded with no damage") }
            } catch {
                #expect(error.isCorrupt, "\(Int(fraction * 100))%: \(error)")
            }
        }
    }

    @Test func lenientJPEGTruncationIsAWarning() throws {
        let data = try Corpus.data("photos/kodak_pixpro_fz201.jpg")
        let image = try JPEGCodec.decode(data.prefix(data.count / 2), options: DecodeOptions())
        #expect(image.warnings.contains { $0.contains("Premature end of JPEG file") })
    }

    static let broken = CorpusFile.all(in: "broken")

    @Test(arguments: broken)
    func brokenFilesGiveAResult(_ file: CorpusFile) throws {
        let data = try file.data
        let format: MediaFormat? =
            switch file.url.pathExtension.lowercased() {
            case "jpg", "jpeg": .jpeg
            case "png": .png
            case "webp": .webp
            default: nil
            }
        guard let format else { return }
        for strict in [false, true] {
            do {
                let image = try ImageCodecs.decode(data, format: format, options: DecodeOptions(strict: strict))
                #expect(image.pixels.pixelCount > 0)
            } catch {
                if case .invalidDimensions = error { continue }
                #expect(error.isCorrupt || error.isUnsupported || error.isBudget, "\(error)")
            }
        }
        _ = try? ImageCodecs.readInfo(data, format: format)
    }
}
