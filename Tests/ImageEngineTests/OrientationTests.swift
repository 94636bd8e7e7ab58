import MediaTypes
import ImageCodecs
import ImageEngine
import Testing

@Suite struct OrientationTests {
    /// Stored 3×2:  1 2 3 / 4 5 6.
    static let stored: [[Int]] = [[1, 2, 3], [4, 5, 6]]

    /// The upright layout each orientation must produce from `stored`.
    static let expected: [(Orientation, [[Int]])] = [
        (.up, [[1, 2, 3], [4, 5, 6]]),
        (.upMirrored, [[3, 2, 1], [6, 5, 4]]),
        (.down, [[6, 5, 4], [3, 2, 1]]),
        (.downMirrored, [[4, 5, 6], [1, 2, 3]]),
        (.leftMirrored, [[1, 4], [2, 5], [3, 6]]),
        (.right, [[4, 1], [5, 2], [6, 3]]),
        (.rightMirrored, [[6, 3], [5, 2], [4, 1]]),
        (.left, [[3, 6], [2, 5], [1, 4]]),
    ]

    static func image(_ grid: [[Int]], layout: PixelBuffer.Layout, padding: Int = 0) -> PixelBuffer {
        let w = grid[0].count, h = grid.count
        var image = PixelBuffer(width: w, height: h, layout: layout, stride: w * layout.channels + padding)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<layout.channels { image[x, y, c] = UInt8(grid[y][x] * 10 + c) }
            }
        }
        return image
    }

    static func grid(_ image: PixelBuffer) -> [[Int]] {
        (0..<image.height).map { y in (0..<image.width).map { x in Int(image[x, y, 0]) / 10 } }
    }

    @Test(arguments: [PixelBuffer.Layout.gray, .rgb, .rgba], [0, 5])
    func allEightMatchHandWrittenLayouts(layout: PixelBuffer.Layout, padding: Int) {
        let input = Self.image(Self.stored, layout: layout, padding: padding)
        for (orientation, grid) in Self.expected {
            let upright = orientation.apply(to: input)
            #expect(Self.grid(upright) == grid, "\(orientation)")
            // Channels travel together.
            #expect(upright == Self.image(grid, layout: layout) || orientation == .up && padding > 0, "\(orientation)")
        }
    }

    @Test func rawValuesAndDimensionSwapsFollowExif() {
        #expect(Orientation.right.rawValue == 6 && Orientation.left.rawValue == 8)
        #expect(Orientation.leftMirrored.rawValue == 5 && Orientation.rightMirrored.rawValue == 7)
        #expect(Orientation.allCases.filter(\.swapsDimensions).map(\.rawValue) == [5, 6, 7, 8])
    }

    @Test func inversePairsRoundTrip() {
        let input = Self.image([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], layout: .rgb)
        // Rotating right then left (or mirroring twice) gives the original back.
        #expect(Orientation.left.apply(to: Orientation.right.apply(to: input)) == input)
        #expect(Orientation.down.apply(to: Orientation.down.apply(to: input)) == input)
        for o in [Orientation.upMirrored, .downMirrored, .leftMirrored, .rightMirrored] {
            #expect(o.apply(to: o.apply(to: input)) == input, "\(o)")
        }
    }
}
