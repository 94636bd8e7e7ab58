import Foundation
import MediaTypes
import TestSupport
import Testing

@testable import ImageCodecs
@testable import ImageEngine

/// `process` on real files against the route it replaced: the whole frame decoded at the
/// same scale, then `Resizer` (outputs compared as encoded bytes for JPEG, pixels for PNG).
/// The RGB route: JPEG's planar path is off here (`PlanarTranscodeTests` holds it to this one).
@Suite(.tags(.slow), .notInFastTier) struct StreamingProcessTests {
    static let limitSets: [(String, ProcessingLimits)] = [
        ("fit 2048 + thumbnail 256", ProcessingLimits(thumbnailSize: 256)),
        ("fit 256 q80", ProcessingLimits(maxLongSide: 256, quality: 80)),
        ("byte cap shrinks", ProcessingLimits(byteCap: 30_000, maxLongSide: 1024, qualityFloor: 80)),
        ("thumbnail box above the main output (held to it)", ProcessingLimits(maxLongSide: 120, thumbnailSize: 200)),
    ]

    static let files: [String] =
        Corpus.files(in: "photos").map { "photos/" + $0.lastPathComponent } + [
            "orientation/Landscape_5.jpg", "orientation/Portrait_6.jpg", "orientation/Landscape_8.jpg",
            "pngsuite/basn6a08.png", "pngsuite/basn2c16.png", "pngsuite/basi0g08.png",
            "webp/metadata-extractor-images/alpha_lossy_2.webp", "webp/metadata-extractor-images/photo_1.webp",
        ]

    @Test(arguments: files)
    func processMatchesTheFullFrameRoute(_ file: String) throws {
        let data = try Corpus.data(file)
        let sniffed = try Sniffer.sniff(data)
        for (name, base) in Self.limitSets {
            var limits = base
            limits.resizesPlanes = false
            if file.hasSuffix(".png") || file.contains("Landscape") || file.contains("Portrait") {
                // Small files: make the outputs smaller than the source so they are resized.
                limits.maxLongSide = min(limits.maxLongSide, 20)
                limits.thumbnailSize = limits.thumbnailSize.map { _ in 12 }
            }
            let result: ProcessingResult
            do { result = try ImageProcessor().process(data, sniffed: sniffed, limits: limits) } catch {
                Issue.record("\(file) \(name): \(error)")
                continue
            }
            if result.passthrough { continue }
            let old = try OldRoute(data, sniffed: sniffed, limits: limits)
            let main = old.resized(to: Size(width: result.output.width, height: result.output.height))
            try expect(result.output, equals: main, icc: old.icc, "\(file) \(name) main")
            if let thumbnail = result.thumbnail {
                try expect(thumbnail, equals: old.thumbnail(), icc: old.icc, "\(file) \(name) thumbnail")
            }
        }
    }

    private func expect(_ image: ProcessedImage, equals pixels: PixelBuffer, icc: [UInt8]?, _ label: String) throws {
        switch image.format {
        case .jpeg:
            let encoded = try JPEGCodec.encode(pixels, quality: try #require(image.quality), iccProfile: icc)
            #expect(image.data == encoded, "\(label): JPEG bytes differ")
        default:
            let decoded = try ImageCodecs.decode(image.data, format: image.format).pixels
            let expected = decoded.layout == .rgb && pixels.layout == .rgba ? AlphaChannel.droppingAlpha(pixels) : pixels
            #expect(decoded.bytes == expected.bytes, "\(label): PNG pixels differ")
        }
    }
}

/// The engine's old route: decode the whole frame at the scale `process` picks, resize it.
struct OldRoute {
    let decoded: DecodedImage
    let orientation: Orientation
    let mainSize: Size
    let thumbSize: Size?
    let icc: [UInt8]?

    init(_ data: Data, sniffed: SniffedType, limits: ProcessingLimits) throws {
        let facts = try ImageProcessor.imageFacts(data, sniffed: sniffed, limits: limits)
        orientation = facts.orientation
        let stored = facts.stored
        let upright = orientation.swapsDimensions ? Size(width: stored.height, height: stored.width) : stored
        let mainSize = TargetSize.main(for: upright, policy: limits.policy)
        self.mainSize = mainSize
        // A thumbnail is never larger than the attachment.
        thumbSize = limits.thumbnailSize.map { FitBox.fit(TargetSize.thumbnail(for: upright, side: $0), in: mainSize) }
        let cover = Size(
            width: max(mainSize.width, thumbSize?.width ?? 0), height: max(mainSize.height, thumbSize?.height ?? 0))
        let isCMYK = facts.isCMYK
        let options = ImageProcessor.decodeOptions(
            stored: stored, covering: cover, orientation, limits, powerOfTwoScales: isCMYK)
        decoded = try ImageCodecs.decode(data, format: sniffed.format, options: options)
        icc = ICCProfileCheck.usable(decoded.iccProfile, for: decoded.pixels.layout)
    }

    func resized(to size: Size) -> PixelBuffer { Resizer().resize(decoded.pixels, to: size, orientation: orientation) }

    /// From the main output, which always covers the thumbnail (held to it).
    func thumbnail() -> PixelBuffer {
        Resizer().resize(resized(to: mainSize), to: thumbSize!)
    }
}
