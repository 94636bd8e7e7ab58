import MediaTypes
import ImageEngine
import Testing

@Suite struct FitBoxTests {
    static let box = Size(width: 256, height: 256)

    @Test(arguments: [
        (Size(width: 5760, height: 3840), Size(width: 256, height: 171)),
        (Size(width: 3840, height: 5760), Size(width: 171, height: 256)),
        (Size(width: 100, height: 50), Size(width: 100, height: 50)),
        (Size(width: 10000, height: 1), Size(width: 256, height: 1)),
        (Size(width: 1, height: 10000), Size(width: 1, height: 256)),
        (Size(width: 4000, height: 4000), Size(width: 256, height: 256)),
        (Size(width: 257, height: 256), Size(width: 256, height: 255)),
        (Size(width: 256, height: 256), Size(width: 256, height: 256)),
    ])
    func fitsInSquareBox(_ size: Size, _ expected: Size) {
        #expect(FitBox.fit(size, in: Self.box) == expected)
    }

    @Test func upscalesOnlyWhenAllowed() {
        #expect(
            FitBox.fit(Size(width: 100, height: 50), in: Self.box, allowUpscale: true) == Size(width: 256, height: 128))
        #expect(
            FitBox.fit(Size(width: 3, height: 2), in: Self.box, allowUpscale: true) == Size(width: 256, height: 171))
    }

    @Test func nonSquareBoxUsesTheLimitingSide() {
        // 2000×1000 in 400×100: height limits (1000/100 > 2000/400).
        #expect(
            FitBox.fit(Size(width: 2000, height: 1000), in: Size(width: 400, height: 100))
                == Size(width: 200, height: 100))
        #expect(
            FitBox.fit(Size(width: 4000, height: 3000), in: Size(width: 2048, height: 2048))
                == Size(width: 2048, height: 1536))
    }

    @Test func neverReturnsZero() {
        for long in [257, 1000, 100_000, 1_000_000] {
            let fitted = FitBox.fit(Size(width: long, height: 1), in: Self.box)
            #expect(fitted.width == 256 && fitted.height == 1)
        }
    }
}
