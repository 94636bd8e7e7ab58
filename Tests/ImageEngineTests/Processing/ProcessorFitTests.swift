import Foundation
import ImageCodecs
import ImageEngine
import MediaTypes
import TestSupport
import Testing

/// Fitting to the byte cap, long side and memory budget; passthrough; refusals.
@Suite struct ProcessorFitTests {
    /// Between this 16 MP photo's size at 2048x1536 at q85 (about 60 KB: it is a smooth scene)
    /// and at q95 (about 80 KB), so starting at q95 makes the quality search run.
    static let cap = 70_000

    /// A photo at 2048 under a cap it only meets below q95: the quality search shows in the steps.
    @Test func photoFitsUnderTheCap() throws {
        let limits = ProcessingLimits(byteCap: Self.cap, maxLongSide: 2048, quality: 95)
        let result = try Processing.run(corpus: "photos/kodak_pixpro_fz201.jpg", limits)
        #expect(result.output.data.count <= Self.cap)
        #expect(result.output.format == .jpeg)
        #expect(result.output.width == 2048 && result.output.height == 1536)
        let search = try #require(result.steps.first { $0.hasPrefix("quality search 95 -> ") }, "\(result.steps)")
        #expect(search.contains("to fit \(Self.cap) bytes (\(result.output.data.count) bytes, "))
        #expect(search.hasSuffix(" encodes)"))
        let quality = try #require(result.output.quality)
        #expect(quality >= 60 && quality < 95)
        #expect(search.hasPrefix("quality search 95 -> \(quality) "))
    }

    /// With a cap the quality floor cannot meet, the size shrinks until it fits.
    @Test func tinyCapShrinksTheImage() throws {
        let limits = ProcessingLimits(byteCap: 60_000, maxLongSide: 2048)
        let result = try Processing.run(fixture: "photo-1600x1200.jpg", limits)
        #expect(result.output.data.count <= 60_000)
        #expect(result.output.width < 1600)
        #expect(
            result.steps.contains { $0.hasPrefix("shrunk to ") && $0.hasSuffix("to fit 60000 bytes") },
            "\(result.steps)")
        let pixels = try Processing.pixels(result.output)
        #expect(pixels.width == result.output.width && pixels.height == result.output.height)
        // Aspect ratio kept.
        #expect(abs(Double(pixels.width) / Double(pixels.height) - 4.0 / 3.0) < 0.02)
    }

    @Test func impossibleCapThrowsCannotFit() throws {
        #expect {
            _ = try Processing.run(fixture: "photo-1600x1200.jpg", ProcessingLimits(byteCap: 200))
        } throws: { error in
            guard case .cannotFit(200, let smallest)? = error as? ProcessingError else { return false }
            return smallest > 200
        }
    }

    @Test func smallAcceptedJPEGPassesThroughByteIdentical() throws {
        let data = try Processing.fixture("small-320x240.jpg")
        let result = try Processing.run(data)
        #expect(result.passthrough)
        #expect(result.output.data == data)
        #expect(result.output.format == .jpeg && result.output.width == 320 && result.output.height == 240)
        #expect(result.output.quality == nil && result.thumbnail == nil)
        // Vouched for by one decode at the smallest scale.
        #expect(result.steps.filter { $0.hasPrefix("decoded") } == ["decoded at 1/8: 320x240 -> 40x30 to validate"])
    }

    /// A passthrough candidate is decoded before it is vouched for, in every mode: damaged data
    /// is refused unless damaged images are accepted, and then it passes with a warning.
    @Test func passthroughIsValidatedByADecode() throws {
        let small = try Processing.fixture("small-320x240.jpg")
        let strict = try Processing.run(small, ProcessingLimits(policy: AttachmentPolicy(strict: true)))
        #expect(strict.passthrough && strict.output.data == small)
        #expect(strict.steps.contains("decoded at 1/8: 320x240 -> 40x30 to validate"), "\(strict.steps)")

        let truncated = try Processing.fixture("truncated.jpg")
        #expect(throws: ProcessingError.damaged(.jpeg, detail: "Premature end of JPEG file")) {
            _ = try Processing.run(truncated)
        }
        #expect(throws: ProcessingError.self) { _ = try Processing.run(truncated, ProcessingLimits(policy: AttachmentPolicy(strict: true))) }
        let accepted = try Processing.run(truncated, ProcessingLimits(policy: AttachmentPolicy(acceptDamaged: true)))
        #expect(accepted.passthrough && accepted.output.data == truncated)
        #expect(
            accepted.warnings.contains("damaged JPEG used as decoded (damaged images accepted)"), "\(accepted.warnings)"
        )
    }

    /// A PNG cut inside its image data: refused as damaged, or used as decoded (the rows that
    /// are there, the rest black) under `acceptDamaged`, with the damage in the warnings.
    @Test func truncatedPNGIsUsedOnlyWhenDamageIsAccepted() throws {
        let cut = try Processing.fixture("opaque-300x200.png").prefix(50_000)
        #expect {
            _ = try Processing.run(Data(cut))
        } throws: { error in
            guard case .damaged(.png, let detail)? = error as? ProcessingError else { return false }
            return detail.hasPrefix("PNG file truncated inside the IDAT chunk")
        }
        let accepted = try Processing.run(Data(cut), ProcessingLimits(policy: AttachmentPolicy(acceptDamaged: true)))
        #expect(accepted.output.width == 267 && accepted.output.height == 200)
        #expect(accepted.warnings.contains("damaged PNG used as decoded (damaged images accepted)"), "\(accepted.warnings)")
    }

    /// A thumbnail on a passthrough decodes once, at the thumbnail's own scale.
    @Test func passthroughThumbnailDecodesAtItsScale() throws {
        let data = try Processing.fixture("photo-1600x1200.jpg")
        let result = try Processing.run(data, ProcessingLimits(thumbnailSize: 100))
        #expect(result.passthrough && result.output.data == data)
        #expect(result.steps.contains("decoded at 1/8: 1600x1200 -> 200x150"), "\(result.steps)")
        let thumb = try #require(result.thumbnail)
        #expect(thumb.width == 100 && thumb.height == 75 && thumb.format == .jpeg && thumb.quality == 80)
    }

    /// An opaque PNG within limits passes through too.
    @Test func acceptedPNGPassesThrough() throws {
        let data = try Processing.fixture("opaque-300x200.png")
        let result = try Processing.run(data)
        #expect(result.passthrough && result.output.data == data)
    }

    /// Over the NSE memory budget but under the long side: shrunk until w*h*4 fits.
    @Test func memoryBudgetShrinks() throws {
        let limits = ProcessingLimits(maxLongSide: 4096, decodedBudget: 4_000_000)
        let result = try Processing.run(fixture: "large-4000x3000.jpg", limits)
        let w = result.output.width, h = result.output.height
        #expect(w * h * 4 <= 4_000_000)
        #expect(w > 1100, "as large as the budget allows, got \(w)x\(h)")
        #expect(abs(Double(w) / Double(h) - 4.0 / 3.0) < 0.01)
    }

    @Test func neverUpscalesUnlessAsked() throws {
        let data = try Processing.fixture("lossy-320x240.webp")
        let normal = try Processing.run(data, ProcessingLimits(maxLongSide: 1000))
        #expect(normal.output.width == 320 && normal.output.height == 240)
        let upscaled = try Processing.run(data, ProcessingLimits(maxLongSide: 640, allowUpscale: true))
        #expect(upscaled.output.width == 640 && upscaled.output.height == 480)
    }

    struct Bomb: Sendable, CustomTestStringConvertible {
        let path: String
        let width: Int
        let height: Int
        var testDescription: String { path }
    }

    /// Pixel bombs are refused from the header before any pixel memory exists.
    @Test(arguments: [
        Bomb(path: "jpeg/misc/sharp_giant-image_20000x14000.jpg", width: 20_000, height: 14_000),
        Bomb(path: "pngsuite/extra/65536-uint32-limit.png", width: 65_536, height: 65_536),
    ])
    func pixelBombIsRefusedBeforeDecode(_ bomb: Bomb) throws {
        let data = try Corpus.data(bomb.path)
        #expect(
            throws: ProcessingError.codec(
                .pixelBudgetExceeded(width: bomb.width, height: bomb.height, budget: 50_000_000))
        ) {
            _ = try ImageProcessor().process(
                data, sniffed: try Sniffer.sniff(data), limits: ProcessingLimits(thumbnailSize: 256))
        }
    }

    /// The header is checked even when the sniffed type carries no size.
    @Test func pixelBudgetCheckedWithoutSniffedSize() throws {
        let data = try Corpus.data("jpeg/misc/sharp_giant-image_20000x14000.jpg")
        #expect(throws: ProcessingError.codec(.pixelBudgetExceeded(width: 20_000, height: 14_000, budget: 1_000_000))) {
            _ = try ImageProcessor().process(
                data, sniffed: SniffedType(format: .jpeg), limits: ProcessingLimits(policy: AttachmentPolicy(pixelBudget: 1_000_000)))
        }
    }

    @Test(arguments: ["tone-1s.wav", "not-media.txt"])
    func otherFormatsAreNotDecodable(_ name: String) throws {
        let data = try Processing.fixture(name)
        let format = try Sniffer.sniff(data).format
        #expect(throws: ProcessingError.notDecodable(format)) { _ = try Processing.run(data) }
    }

    /// Resized or not, a truncated JPEG is damaged: refused by default, a codec error when
    /// strict, and used for what decodes (with the warning) when damaged images are accepted.
    @Test(arguments: [2048, 800, 256])
    func truncatedJPEGIsRefusedAtEverySize(_ side: Int) throws {
        let data = try Processing.fixture("truncated.jpg")
        #expect(throws: ProcessingError.damaged(.jpeg, detail: "Premature end of JPEG file")) {
            _ = try Processing.run(data, ProcessingLimits(maxLongSide: side))
        }
        #expect {
            _ = try Processing.run(data, ProcessingLimits(maxLongSide: side, policy: AttachmentPolicy(strict: true)))
        } throws: { error in
            guard case .codec? = error as? ProcessingError else { return false }
            return true
        }
        let accepted = try Processing.run(data, ProcessingLimits(maxLongSide: side, policy: AttachmentPolicy(acceptDamaged: true)))
        #expect(accepted.warnings.contains("damaged JPEG used as decoded (damaged images accepted)"))
        #expect(accepted.warnings.contains("jpeg decode: Premature end of JPEG file"), "\(accepted.warnings)")
        #expect(accepted.output.format == .jpeg)
    }

    @Test func invalidLimitsAreRefused() throws {
        let data = try Processing.fixture("small-320x240.jpg")
        #expect(throws: ProcessingError.self) { _ = try Processing.run(data, ProcessingLimits(byteCap: 0)) }
        #expect(throws: ProcessingError.self) { _ = try Processing.run(data, ProcessingLimits(quality: 101)) }
        #expect(throws: ProcessingError.self) { _ = try Processing.run(data, ProcessingLimits(thumbnailSize: 0)) }
    }

    /// The ICC profile survives the re-encode.
    @Test func iccProfileIsKept() throws {
        let data = try Corpus.data("jpeg/misc/pillow_icc_profile_big.jpg")  // 425x250, a 400 KB profile
        let profile = try #require(try JPEGCodec.readInfo(data).iccProfile)
        let result = try Processing.run(data, ProcessingLimits(maxLongSide: 128, thumbnailSize: 64))
        #expect(!result.passthrough && result.output.width == 128)
        #expect(try JPEGCodec.readInfo(result.output.data).iccProfile == profile)
        #expect(try JPEGCodec.readInfo(try #require(result.thumbnail).data).iccProfile == profile)
    }

    /// A CMYK profile is not carried over to the RGB output: lcms2 applied it (the output is
    /// untagged sRGB), so nothing is dropped.
    @Test func cmykProfileIsAppliedNotCarried() throws {
        let data = try Corpus.data("photos/cmyk_canon_eos300d_wikimedia.jpg")
        #expect(try JPEGCodec.readInfo(data).iccProfile != nil)
        let result = try Processing.run(data)
        #expect(try JPEGCodec.readInfo(result.output.data).iccProfile == nil)
        #expect(result.steps.contains { $0.hasPrefix("converted ycck to sRGB through the embedded ICC profile") })
        #expect(!result.steps.contains { $0.hasPrefix("dropped the") }, "\(result.steps)")
        #expect(result.output.data.count < 100_000)
    }

    /// A CMYK file's profile that lcms2 cannot use (relabelled RGB) is not carried over either,
    /// though it claims RGB: it does not describe the pixels the default CMYK profile made.
    @Test func unusableCMYKProfileIsDropped() throws {
        var bytes = [UInt8](try Corpus.data("photos/cmyk_canon_eos300d_wikimedia.jpg"))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("ICC_PROFILE".utf8)) })
        bytes.replaceSubrange((at + 14 + 16)..<(at + 14 + 20), with: Array("RGB ".utf8))
        let result = try Processing.run(Data(bytes))
        #expect(try JPEGCodec.readInfo(result.output.data).iccProfile == nil)
        #expect(
            result.steps.contains {
                $0
                    == "converted ycck to sRGB through the default CMYK profile 'Chemical proof', the file's ICC profile is unusable (lcms2, relative colorimetric intent, black point compensation)"
            },
            "\(result.steps)")
        #expect(
            result.warnings.contains { $0.contains("CMYK ICC profile (557168 bytes) not used") }, "\(result.warnings)")
    }

    /// One processor reused across images gives the same bytes as fresh ones.
    @Test func processorIsReusable() throws {
        let processor = ImageProcessor()
        let limits = ProcessingLimits(maxLongSide: 300, thumbnailSize: 64)
        for name in ["photo-1600x1200.jpg", "alpha-256x256.png", "lossy-320x240.webp", "photo-1600x1200.jpg"] {
            let data = try Processing.fixture(name)
            let reused = try processor.process(data, sniffed: try Sniffer.sniff(data), limits: limits)
            let fresh = try Processing.run(data, limits)
            #expect(reused.output == fresh.output && reused.thumbnail == fresh.thumbnail, "\(name)")
        }
    }
}

/// A thumbnail is held to the limits of the attachment it stands for (a case of the generative
/// engine harness): a noisy PNG with alpha that the byte cap shrinks must not get a thumbnail at
/// the requested box, larger than the attachment and over the cap (2600x2600 and 27 MB beside a
/// 1504x1504 image under 10 MB, with `--thumbnail 4096`).
@Suite struct ThumbnailLimitTests {
    static let cap = 150_000

    static func noisyPNG(side: Int) throws -> Data {
        var pixels = Synthetic.make(.noise, width: side, height: side, layout: .rgba)
        for i in stride(from: 3, to: pixels.bytes.count, by: 4) { pixels.bytes[i] = UInt8(64 + (i / 4) % 128) }
        return try PNGCodec.encode(pixels)
    }

    @Test(arguments: [600, 2048])
    func aThumbnailIsNeverLargerThanItsAttachmentNorOverTheCap(thumbnailSize: Int) throws {
        let limits = ProcessingLimits(byteCap: Self.cap, maxLongSide: 2048, thumbnailSize: thumbnailSize)
        let result = try Processing.run(try Self.noisyPNG(side: 600), limits)
        #expect(result.output.format == .png && result.output.data.count <= Self.cap)
        #expect(result.output.width < 600, "the cap shrank the image: \(result.steps)")
        let thumbnail = try #require(result.thumbnail)
        #expect(thumbnail.width <= result.output.width && thumbnail.height <= result.output.height, "\(result.steps)")
        #expect(thumbnail.data.count <= Self.cap)
        let pixels = try Processing.pixels(thumbnail)
        #expect(pixels.width == thumbnail.width && pixels.height == thumbnail.height)
    }

    /// A thumbnail box smaller than the attachment is kept as asked.
    @Test func aSmallThumbnailKeepsItsBox() throws {
        let limits = ProcessingLimits(byteCap: Self.cap, maxLongSide: 2048, thumbnailSize: 64)
        let result = try Processing.run(try Self.noisyPNG(side: 600), limits)
        let thumbnail = try #require(result.thumbnail)
        #expect(thumbnail.width == 64 && thumbnail.height == 64)
    }
}
