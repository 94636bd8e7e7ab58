import CLCMS2
import Foundation
import TestSupport
import Testing

@testable import ImageCodecs

/// `CMYKLookupTable` gives lcms2's own 8-bit CMYK → RGB results, byte for byte: the reference is
/// `cmsDoTransform` on a `TYPE_CMYK_8` (or `_REV`) → `TYPE_RGB_8` transform built as the
/// engine built its transforms before the table, with lcms2's default grid.
@Suite struct CMYKLookupTableTests {
    /// The profiles the engine meets: the default one (relative colorimetric with black point
    /// compensation), a press profile (SWOP, perceptual, from the corpus photo) and a tiny
    /// 3-point CLUT of our own (perceptual).
    static func profiles() throws -> [(name: String, bytes: [UInt8], rendering: CMYKColorTransform.Rendering)] {
        let photo = [UInt8](try Corpus.data(CMYKColorTests.profiled))
        let small = [UInt8](
            try Data(contentsOf: Corpus.testImages.appendingPathComponent("codecs/cmyk_small_profile.jpg")))
        return [
            ("default", DefaultCMYKProfile.bytes, DefaultCMYKProfile.rendering),
            ("SWOP", try JPEGCodec.readInfo(Data(photo)).iccProfile ?? [], .perceptual),
            ("3-point", try JPEGCodec.readInfo(Data(small)).iccProfile ?? [], .perceptual),
        ]
    }

    /// Every combination of 22 values per channel (nodes, their neighbours, both ends), then
    /// `random` seeded pixels: 4 bytes each.
    static func samples(random: Int, seed: UInt64) -> [UInt8] {
        let values: [UInt8] = [0, 1, 2, 8, 15, 16, 17, 18, 32, 33, 64, 100, 127, 128, 129, 200, 238, 239, 240, 253, 254, 255]
        var bytes: [UInt8] = []
        bytes.reserveCapacity((values.count * values.count * values.count * values.count + random) * 4)
        for c in values {
            for m in values {
                for y in values {
                    for k in values { bytes += [c, m, y, k] }
                }
            }
        }
        var state = seed
        for _ in 0..<(random * 4) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return bytes
    }

    /// lcms2's 8-bit conversion of `cmyk`, or nil when lcms2 cannot build the transform.
    static func lcms(_ cmyk: [UInt8], profile: [UInt8], inverted: Bool, rendering: CMYKColorTransform.Rendering)
        -> [UInt8]?
    {
        let input = profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
        guard let input, let sRGB = cmsCreate_sRGBProfile() else { return nil }
        defer {
            cmsCloseProfile(input)
            cmsCloseProfile(sRGB)
        }
        let format = inverted ? PA_LCMS_TYPE_CMYK_8_REV : PA_LCMS_TYPE_CMYK_8
        guard
            let transform = cmsCreateTransform(input, format, sRGB, PA_LCMS_TYPE_RGB_8, rendering.intent, rendering.flags)
        else { return nil }
        defer { cmsDeleteTransform(transform) }
        var rgb = [UInt8](repeating: 0, count: cmyk.count / 4 * 3)
        cmyk.withUnsafeBytes { src in
            rgb.withUnsafeMutableBytes { dst in
                cmsDoTransform(transform, src.baseAddress, dst.baseAddress, UInt32(cmyk.count / 4))
            }
        }
        return rgb
    }

    @Test(arguments: [false, true])
    func theTableGivesLCMSsBytes(inverted: Bool) throws {
        let cmyk = Self.samples(random: 100_000, seed: inverted ? 0xC3 : 0x3C)
        let pixels = cmyk.count / 4
        for profile in try Self.profiles() {
            #expect(profile.bytes.count > 128, "\(profile.name): no profile")
            let reference = try #require(
                Self.lcms(cmyk, profile: profile.bytes, inverted: inverted, rendering: profile.rendering))
            let transform = try CMYKColorTransform.make(
                profile: profile.bytes, inverted: inverted, rendering: profile.rendering
            ).get()
            #expect(transform.usesTable, "\(profile.name): lcms2 converts, not the table")
            // As the row decoder converts: rows of 640 pixels, the last one short.
            var ours = [UInt8](repeating: 0, count: pixels * 3)
            let width = 640, rows = (pixels + width - 1) / width
            cmyk.withUnsafeBufferPointer { src in
                ours.withUnsafeMutableBufferPointer { dst in
                    for row in 0..<rows {
                        let n = min(width, pixels - row * width)
                        transform.convert(
                            src.baseAddress! + row * width * 4, stride: width * 4,
                            into: dst.baseAddress! + row * width * 3, stride: width * 3, width: n, rows: 1)
                    }
                }
            }
            var differing: [Int] = []
            for p in 0..<pixels where ours[(p * 3)..<(p * 3 + 3)] != reference[(p * 3)..<(p * 3 + 3)] {
                differing.append(p)
            }
            let shown = differing.prefix(3).map { (p: Int) -> String in
                let input = Array(cmyk[(p * 4)..<(p * 4 + 4)])
                return "cmyk \(input): ours \(Array(ours[(p * 3)..<(p * 3 + 3)])), lcms2 \(Array(reference[(p * 3)..<(p * 3 + 3)]))"
            }
            #expect(differing.isEmpty, "\(profile.name), inverted \(inverted): \(differing.count) of \(pixels) differ; \(shown)")
        }
    }

    /// As the row decoder calls it: several rows in one call, both strides padded, and runs of
    /// one colour (converted once, then copied) between single pixels.
    @Test func rowsWithPaddedStridesAndRunsOfOneColour() throws {
        let (width, rows) = (37, 5)
        let sourceStride = width * 4 + 12, destinationStride = width * 3 + 5
        var cmyk = [UInt8](repeating: 0xEE, count: sourceStride * rows)
        var state: UInt64 = 0xC0FFEE
        var pixel: [UInt8] = [0, 0, 0, 0]
        for y in 0..<rows {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // A new colour on about a quarter of the pixels: runs of 1 to several.
                if state >> 62 == 0 || x == 0 { pixel = (0..<4).map { UInt8(truncatingIfNeeded: state >> (8 * $0 + 24)) } }
                for c in 0..<4 { cmyk[y * sourceStride + x * 4 + c] = pixel[c] }
            }
        }
        let packed = (0..<rows).flatMap { y in cmyk[(y * sourceStride)..<(y * sourceStride + width * 4)] }
        for inverted in [false, true] {
            let profile = try #require(try Self.profiles().first { $0.name == "SWOP" })
            let reference = try #require(
                Self.lcms(Array(packed), profile: profile.bytes, inverted: inverted, rendering: profile.rendering))
            let transform = try CMYKColorTransform.make(
                profile: profile.bytes, inverted: inverted, rendering: profile.rendering
            ).get()
            #expect(transform.usesTable)
            var rgb = [UInt8](repeating: 0x55, count: destinationStride * rows)
            cmyk.withUnsafeBufferPointer { src in
                rgb.withUnsafeMutableBufferPointer { dst in
                    transform.convert(
                        src.baseAddress!, stride: sourceStride, into: dst.baseAddress!, stride: destinationStride,
                        width: width, rows: rows)
                }
            }
            for y in 0..<rows {
                let row = Array(rgb[(y * destinationStride)..<(y * destinationStride + width * 3)])
                #expect(row == Array(reference[(y * width * 3)..<((y + 1) * width * 3)]), "row \(y), inverted \(inverted)")
                // The padding after each row is left alone.
                #expect(rgb[(y * destinationStride + width * 3)..<((y + 1) * destinationStride)].allSatisfy { $0 == 0x55 })
            }
        }
    }
}
