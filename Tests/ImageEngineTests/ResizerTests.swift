import MediaTypes
import ImageCodecs
import ImageEngine
import TestSupport
import Testing

@Suite struct ResizerTests {
    /// (source, destination) pairs: strong and mild downscales, odd sizes, 1-px outputs, one
    /// axis only, and upscales.
    static let pairs: [(Size, Size)] = [
        (Size(width: 720, height: 480), Size(width: 256, height: 171)),
        (Size(width: 97, height: 61), Size(width: 31, height: 20)),
        (Size(width: 64, height: 64), Size(width: 63, height: 33)),
        (Size(width: 300, height: 17), Size(width: 7, height: 5)),
        (Size(width: 55, height: 40), Size(width: 1, height: 13)),
        (Size(width: 40, height: 55), Size(width: 9, height: 1)),
        (Size(width: 33, height: 21), Size(width: 1, height: 1)),
        (Size(width: 120, height: 80), Size(width: 120, height: 41)),
        (Size(width: 120, height: 80), Size(width: 37, height: 80)),
        (Size(width: 24, height: 16), Size(width: 61, height: 47)),
        (Size(width: 3, height: 2), Size(width: 16, height: 11)),
        (Size(width: 1000, height: 9), Size(width: 8, height: 3)),
    ]

    @Test(arguments: Synthetic.allCases, [PixelBuffer.Layout.gray, .rgb, .rgba])
    func matchesTheFloatReference(kind: Synthetic, layout: PixelBuffer.Layout) {
        let resizer = Resizer()
        for (from, to) in Self.pairs where !Self.usesBoxReduce(from, to) {
            let image = Synthetic.make(kind, width: from.width, height: from.height, layout: layout)
            let fast = resizer.resize(image, to: to)
            let reference = ReferenceResize.lanczos3(image, width: to.width, height: to.height)
            #expect(fast.width == to.width && fast.height == to.height && fast.layout == layout)
            let error = maxAbsDifference(fast, reference)
            #expect(error <= 1, "\(kind) \(layout) \(from) -> \(to): max error \(error)")
            if to.width >= 8, to.height >= 8 {
                let ssim = SSIM.luma(fast, reference)
                #expect(ssim >= 0.99, "\(kind) \(layout) \(from) -> \(to): SSIM \(ssim)")
            }
        }
    }

    /// Reductions of 4× or more go through a box pre-reduce, so they are close to the pure
    /// Lanczos3 reference rather than within one level of it.
    static let largeReductions: [(Size, Size)] = [
        (Size(width: 720, height: 480), Size(width: 64, height: 43)),
        (Size(width: 600, height: 420), Size(width: 60, height: 42)),
        (Size(width: 800, height: 90), Size(width: 160, height: 30)),
        (Size(width: 2000, height: 50), Size(width: 256, height: 6)),
    ]

    /// The engine's rule: an axis shrinking 4× or more to at least 16 pixels is box-reduced.
    static func usesBoxReduce(_ from: Size, _ to: Size) -> Bool {
        (from.width >= 4 * to.width && to.width >= 16) || (from.height >= 4 * to.height && to.height >= 16)
    }

    @Test(.tags(.slow), .notInFastTier, arguments: Synthetic.allCases, [PixelBuffer.Layout.gray, .rgb, .rgba])
    func largeReductionsStayCloseToTheReference(kind: Synthetic, layout: PixelBuffer.Layout) {
        let resizer = Resizer()
        for (from, to) in Self.largeReductions {
            #expect(Self.usesBoxReduce(from, to))
            let image = Synthetic.make(kind, width: from.width, height: from.height, layout: layout)
            let fast = resizer.resize(image, to: to)
            let reference = ReferenceResize.lanczos3(image, width: to.width, height: to.height)
            let mean = meanAbsDifference(fast, reference)
            #expect(mean <= 2.5, "\(kind) \(layout) \(from) -> \(to): mean error \(mean)")
            if to.width >= 8, to.height >= 8 {
                let ssim = SSIM.luma(fast, reference)
                #expect(ssim >= 0.95, "\(kind) \(layout) \(from) -> \(to): SSIM \(ssim)")
            }
        }
    }

    @Test func constantImageStaysExactlyConstant() {
        var image = PixelBuffer(width: 91, height: 57, layout: .rgb)
        for i in 0..<image.bytes.count { image.bytes[i] = [200, 17, 255][i % 3] }
        let out = Resizer().resize(image, to: Size(width: 13, height: 29))
        for y in 0..<out.height {
            for x in 0..<out.width { #expect([out[x, y, 0], out[x, y, 1], out[x, y, 2]] == [200, 17, 255]) }
        }
    }

    @Test(arguments: [
        (16, 8, [Size(width: 5, height: 3), Size(width: 8, height: 4), Size(width: 23, height: 9)]),
        (160, 80, [Size(width: 40, height: 20), Size(width: 17, height: 16), Size(width: 33, height: 5)]),
    ])
    func transparentRedDoesNotBleedIntoOpaqueGreen(width: Int, height: Int, sizes: [Size]) {
        // Left half fully transparent red, right half opaque green. The large image also takes
        // the box pre-reduce path, which premultiplies on its own.
        var image = PixelBuffer(width: width, height: height, layout: .rgba)
        for y in 0..<height {
            for x in 0..<width {
                if x < width / 2 { image[x, y, 0] = 255 } else { image[x, y, 1] = 255; image[x, y, 3] = 255 }
            }
        }
        for size in sizes {
            let out = Resizer().resize(image, to: size)
            for y in 0..<out.height {
                for x in 0..<out.width {
                    #expect(out[x, y, 0] == 0, "red bled at \(x),\(y) in \(size)")
                    if out[x, y, 3] > 0 { #expect(out[x, y, 1] == 255, "green lost at \(x),\(y) in \(size)") }
                }
            }
        }
    }

    @Test func translucentImageMatchesReferenceInPremultipliedTerms() {
        var image = PixelBuffer(width: 50, height: 30, layout: .rgba)
        var rng = SplitMix64(seed: 7)
        for y in 0..<30 {
            for x in 0..<50 {
                for c in 0..<3 { image[x, y, c] = UInt8(rng.next() & 0xFF) }
                image[x, y, 3] = UInt8(x * 5)
            }
        }
        let fast = Resizer().resize(image, to: Size(width: 17, height: 11))
        let reference = ReferenceResize.lanczos3(image, width: 17, height: 11)
        for y in 0..<11 {
            for x in 0..<17 {
                #expect(abs(Int(fast[x, y, 3]) - Int(reference[x, y, 3])) <= 2)
                for c in 0..<3 {
                    let f = Int(fast[x, y, c]) * Int(fast[x, y, 3]) / 255
                    let r = Int(reference[x, y, c]) * Int(reference[x, y, 3]) / 255
                    #expect(abs(f - r) <= 3, "\(x),\(y),\(c): \(f) vs \(r)")
                }
            }
        }
    }

    @Test(arguments: Orientation.allCases)
    func fusedOrientationEqualsResizeThenOrient(orientation: Orientation) {
        let resizer = Resizer()
        for layout in [PixelBuffer.Layout.gray, .rgb, .rgba] {
            let image = Synthetic.make(.gradient, width: 180, height: 120, layout: layout)
            // Both passes, one pass each way, box pre-reduce, upscale, and orientation only.
            for stored in [
                Size(width: 61, height: 47), Size(width: 180, height: 23), Size(width: 29, height: 120),
                Size(width: 40, height: 24), Size(width: 200, height: 130), Size(width: 180, height: 120),
            ] {
                let upright = orientation.swapsDimensions ? Size(width: stored.height, height: stored.width) : stored
                let fused = resizer.resize(image, to: upright, orientation: orientation)
                let separate = orientation.apply(to: resizer.resize(image, to: stored))
                #expect(fused == separate, "\(orientation) \(layout) \(stored)")
            }
        }
    }

    @Test func reusedInstanceGivesTheSameResults() {
        let resizer = Resizer()
        let a = Synthetic.make(.noise, width: 200, height: 150, layout: .rgb)
        let b = Synthetic.make(.edges, width: 40, height: 30, layout: .rgba)
        let first = resizer.resize(a, to: Size(width: 64, height: 48))
        _ = resizer.resize(b, to: Size(width: 13, height: 7))
        #expect(resizer.resize(a, to: Size(width: 64, height: 48)) == first)
        #expect(Resizer().resize(a, to: Size(width: 64, height: 48)) == first)
    }

    @Test func stridedInputIsRespected() {
        let packed = Synthetic.make(.gradient, width: 40, height: 20, layout: .rgb)
        var padded = PixelBuffer(width: 40, height: 20, layout: .rgb, stride: 40 * 3 + 9)
        for y in 0..<20 {
            for x in 0..<40 { for c in 0..<3 { padded[x, y, c] = packed[x, y, c] } }
        }
        let resizer = Resizer()
        #expect(
            resizer.resize(padded, to: Size(width: 11, height: 7))
                == resizer.resize(packed, to: Size(width: 11, height: 7)))
    }
}

@Suite struct ResizerFitTests {
    static let box = Size(width: 256, height: 256)

    @Test func fitsTheUprightSize() {
        let image = Synthetic.make(.gradient, width: 720, height: 480, layout: .rgb)
        let resizer = Resizer()
        #expect(resizer.fit(image, in: Self.box).width == 256)
        let turned = resizer.fit(image, in: Self.box, orientation: .right)
        #expect(turned.width == 171 && turned.height == 256)
        #expect(turned == resizer.resize(image, to: Size(width: 171, height: 256), orientation: .right))
    }

    @Test func followsTheOriginalAspectAfterShrinkOnLoad() {
        // 4001×2999 decoded at 1/8 is 501×375 (ceil); the output must match the original's fit.
        let decoded = Synthetic.make(.noise, width: 501, height: 375, layout: .rgb)
        let original = Size(width: 4001, height: 2999)
        let out = Resizer().fit(decoded, in: Self.box, originalSize: original)
        #expect(Size(width: out.width, height: out.height) == FitBox.fit(original, in: Self.box))
        #expect(out.height == 192)
    }

    @Test func smallUprightImagePassesThrough() {
        let image = Synthetic.make(.edges, width: 100, height: 50, layout: .gray)
        #expect(Resizer().fit(image, in: Self.box) == image)
    }
}
