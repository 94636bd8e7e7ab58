import Foundation
import ImageCodecs
import MediaTypes
import Testing

@testable import ImageEngine

/// The processing stage's small parts: target sizes, the alpha check, ICC matching, step names.
@Suite struct ProcessingInternalsTests {
    @Test func mainSizeFitsTheLongSide() {
        let limits = ProcessingLimits()
        #expect(
            TargetSize.main(for: Size(width: 5760, height: 3840), policy: limits.policy) == Size(width: 2048, height: 1365))
        #expect(TargetSize.main(for: Size(width: 320, height: 240), policy: limits.policy) == Size(width: 320, height: 240))
        #expect(TargetSize.main(for: Size(width: 1, height: 100_000), policy: limits.policy) == Size(width: 1, height: 2048))
    }

    /// The largest aspect-kept size inside the memory budget, never above it.
    @Test(arguments: [
        (Size(width: 4000, height: 3000), 4_000_000), (Size(width: 3000, height: 4000), 1_000_000),
        (Size(width: 2048, height: 2048), 16_000_000), (Size(width: 10_000, height: 10), 4_000),
    ])
    func memoryBudgetIsTight(_ size: Size, _ budget: Int) {
        let fitted = TargetSize.withinMemory(size, aspectOf: size, budget: budget)
        #expect(fitted.width * fitted.height * 4 <= budget)
        // One pixel more on the long side would not fit.
        let long = max(fitted.width, fitted.height) + 1
        let bigger = FitBox.fit(size, in: Size(width: long, height: long), allowUpscale: true)
        #expect(bigger.width * bigger.height * 4 > budget || bigger == fitted)
    }

    @Test func alphaCheckLooksAtEveryPixel() {
        var image = PixelBuffer(width: 37, height: 23, layout: .rgba, stride: 37 * 4 + 12)
        for y in 0..<23 { for x in 0..<37 { image[x, y, 3] = 255 } }
        #expect(AlphaChannel.isOpaque(image))
        image[36, 22, 3] = 254  // the very last pixel
        #expect(!AlphaChannel.isOpaque(image))
        #expect(AlphaChannel.isOpaque(PixelBuffer(width: 3, height: 3, layout: .rgb)))
    }

    @Test func droppingAlphaKeepsColour() {
        var image = PixelBuffer(width: 5, height: 4, layout: .rgba, stride: 24)
        for y in 0..<4 {
            for x in 0..<5 { for c in 0..<4 { image[x, y, c] = UInt8(y * 50 + x * 10 + c) } }
        }
        let rgb = AlphaChannel.droppingAlpha(image)
        #expect(rgb.layout == .rgb && rgb.width == 5 && rgb.height == 4)
        for y in 0..<4 { for x in 0..<5 { for c in 0..<3 { #expect(rgb[x, y, c] == image[x, y, c]) } } }
    }

    @Test func iccProfilesMustDescribeThePixels() {
        func profile(_ space: String) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 132)
            bytes.replaceSubrange(16..<20, with: Array(space.utf8))
            return bytes
        }
        #expect(ICCProfileCheck.usable(profile("RGB "), for: .rgb) != nil)
        #expect(ICCProfileCheck.usable(profile("RGB "), for: .rgba) != nil)
        #expect(ICCProfileCheck.usable(profile("CMYK"), for: .rgb) == nil)
        #expect(ICCProfileCheck.usable(profile("GRAY"), for: .gray) != nil)
        #expect(ICCProfileCheck.usable(profile("RGB "), for: .gray) == nil)
        #expect(ICCProfileCheck.usable([1, 2, 3], for: .rgb) == nil)
        #expect(ICCProfileCheck.usable(nil, for: .rgb) == nil)
    }

    @Test func scaleNames() {
        let stored = Size(width: 5760, height: 3840)
        #expect(
            ImageProcessor.scaleName(stored: stored, decoded: Size(width: 720, height: 480), format: .jpeg) == "1/8")
        #expect(
            ImageProcessor.scaleName(stored: stored, decoded: Size(width: 2880, height: 1920), format: .jpeg) == "1/2")
        #expect(
            ImageProcessor.scaleName(stored: stored, decoded: Size(width: 2160, height: 1440), format: .jpeg) == "3/8")
        #expect(
            ImageProcessor.scaleName(stored: stored, decoded: Size(width: 1440, height: 960), format: .webp) == "0.25x")
    }

    @Test func pixelBudgetCheckSurvivesOverflow() {
        #expect(throws: ProcessingError.codec(.invalidDimensions(width: Int.max, height: 2))) {
            try ImageProcessor.checkPixelBudget(width: Int.max, height: 2, budget: 50)
        }
        #expect(throws: ProcessingError.codec(.pixelBudgetExceeded(width: 1 << 31, height: 1 << 31, budget: 50))) {
            try ImageProcessor.checkPixelBudget(width: 1 << 31, height: 1 << 31, budget: 50)
        }
        #expect(throws: ProcessingError.codec(.invalidDimensions(width: 0, height: 5))) {
            try ImageProcessor.checkPixelBudget(width: 0, height: 5, budget: 50)
        }
    }
}
