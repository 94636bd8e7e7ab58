import Foundation
import Testing

@testable import ImageCodecs

/// `GIFPalettes`: a frame that a kept palette serves as well as its own would is remapped, not
/// quantised again; one it serves clearly worse gets a palette of its own; every index shows a
/// colour near the pixel's.
@Suite("GIF palettes kept from frame to frame")
struct GIFPalettesTests {
    /// `width` x `height` opaque RGBA noise: each channel drawn around `centre` (± 60), seeded.
    static func noise(width: Int, height: Int, centre: (Int, Int, Int), seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % 121 - 60
        }
        for p in 0..<(width * height) {
            bytes[p * 4] = UInt8(max(0, min(255, centre.0 + next())))
            bytes[p * 4 + 1] = UInt8(max(0, min(255, centre.1 + next())))
            bytes[p * 4 + 2] = UInt8(max(0, min(255, centre.2 + next())))
        }
        return bytes
    }

    /// The worst channel difference between each pixel and the colour its index shows.
    static func largestError(_ region: [UInt8], _ indexed: (indices: [UInt8], palette: [(UInt8, UInt8, UInt8)], transparent: Int?)) -> Int {
        var worst = 0
        for (p, i) in indexed.indices.enumerated() {
            let c = indexed.palette[Int(i)]
            worst = max(
                worst, abs(Int(region[p * 4]) - Int(c.0)), abs(Int(region[p * 4 + 1]) - Int(c.1)),
                abs(Int(region[p * 4 + 2]) - Int(c.2)))
        }
        return worst
    }

    @Test func framesOfOneKindShareAPaletteAndAnotherKindGetsItsOwn() throws {
        let palettes = GIFPalettes()
        let (w, h) = (160, 120)
        for seed in 1...4 {
            let region = Self.noise(width: w, height: h, centre: (200, 80, 60), seed: UInt64(seed))
            let indexed = try palettes.indices(for: region, width: w, height: h, quality: .standard)
            #expect(indexed.indices.count == w * h)
            #expect(Self.largestError(region, indexed) < 64, "seed \(seed)")
        }
        #expect(palettes.quantized == 1 && palettes.reused == 3, "quantized \(palettes.quantized), reused \(palettes.reused)")

        // Blue noise: the reddish palette would show it badly, so it gets its own.
        let blue = Self.noise(width: w, height: h, centre: (40, 90, 220), seed: 9)
        let indexed = try palettes.indices(for: blue, width: w, height: h, quality: .standard)
        #expect(palettes.quantized == 2 && palettes.reused == 3)
        #expect(Self.largestError(blue, indexed) < 64)
    }

    @Test func regionsWithTransparencyKeepAPaletteWithATransparentEntry() throws {
        let palettes = GIFPalettes()
        let (w, h) = (160, 120)
        let opaque = Self.noise(width: w, height: h, centre: (120, 120, 120), seed: 3)
        _ = try palettes.indices(for: opaque, width: w, height: h, quality: .standard)
        var holed = Self.noise(width: w, height: h, centre: (120, 120, 120), seed: 4)
        for p in stride(from: 0, to: w * h, by: 7) { holed[p * 4 + 3] = 0 }
        let first = try palettes.indices(for: holed, width: w, height: h, quality: .standard)
        // The opaque frame's palette has no transparent entry: the holed one is quantised.
        #expect(palettes.quantized == 2 && palettes.reused == 0)
        let transparent = try #require(first.transparent)
        for p in stride(from: 0, to: w * h, by: 7) { #expect(first.indices[p] == UInt8(transparent)) }

        var again = Self.noise(width: w, height: h, centre: (120, 120, 120), seed: 5)
        for p in stride(from: 3, to: w * h, by: 7) { again[p * 4 + 3] = 0 }
        let second = try palettes.indices(for: again, width: w, height: h, quality: .standard)
        #expect(palettes.quantized == 2 && palettes.reused == 1)
        let kept = try #require(second.transparent)
        for p in stride(from: 3, to: w * h, by: 7) { #expect(second.indices[p] == UInt8(kept)) }
    }

    /// A retry at a smaller size (a second encoder sharing the set) remaps its frames to the
    /// palette the first attempt kept; a retry at another quality (fewer colours) does not use
    /// it, and makes one of its own.
    @Test func aRetryAtASmallerSizeStartsFromTheKeptPalettes() throws {
        let palettes = GIFPalettes()
        let centre = (90, 160, 200)
        var first = try GIFEncoder(width: 160, height: 120, loopCount: 0, palettes: palettes)
        for seed in 1...3 {
            let frame = Self.noise(width: 160, height: 120, centre: centre, seed: UInt64(seed))
            try first.add(PixelBuffer(width: 160, height: 120, layout: .rgba, bytes: frame), durationMilliseconds: 100)
        }
        _ = try first.finish()
        #expect(palettes.quantized == 1 && palettes.reused == 2, "quantized \(palettes.quantized), reused \(palettes.reused)")

        var smaller = try GIFEncoder(width: 120, height: 90, loopCount: 0, palettes: palettes)
        for seed in 4...6 {
            let frame = Self.noise(width: 120, height: 90, centre: centre, seed: UInt64(seed))
            try smaller.add(PixelBuffer(width: 120, height: 90, layout: .rgba, bytes: frame), durationMilliseconds: 100)
        }
        let gif = try smaller.finish()
        #expect(palettes.quantized == 1 && palettes.reused == 5, "quantized \(palettes.quantized), reused \(palettes.reused)")
        #expect(gif.count > 0)

        let region = Self.noise(width: 120, height: 90, centre: centre, seed: 7)
        let compact = try palettes.indices(for: region, width: 120, height: 90, quality: .compact)
        #expect(palettes.quantized == 2 && palettes.reused == 5)
        #expect(compact.palette.count <= GIFEncoder.Quality.compact.maxColors)
        #expect(Self.largestError(region, compact) < 64)
    }

    /// A region over `GIFEncoder.largestFrame` pixels is refused before libimagequant sees it
    /// (its 2.17 leaks a row per image above that); one of exactly that many is quantised.
    @Test func regionsOverTheLargestFrameAreRefused() throws {
        let palettes = GIFPalettes()
        let over = [UInt8](repeating: 255, count: 2049 * 2048 * 4)
        #expect(throws: CodecError.self) {
            try palettes.indices(for: over, width: 2049, height: 2048, quality: .standard)
        }
        let most = Self.noise(width: 2048, height: 2048, centre: (128, 128, 128), seed: 5)
        let indexed = try palettes.indices(for: most, width: 2048, height: 2048, quality: .standard)
        #expect(indexed.indices.count == 2048 * 2048 && palettes.quantized == 1)
    }
}
