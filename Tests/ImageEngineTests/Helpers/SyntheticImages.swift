import ImageCodecs
import TestSupport

/// Deterministic test pictures.
///
///     let image = Synthetic.make(.checkerboard, width: 97, height: 61, layout: .rgb)
enum Synthetic: String, CaseIterable, CustomStringConvertible, Sendable {
    case gradient, checkerboard, noise, edges

    var description: String { rawValue }

    static func make(_ kind: Synthetic, width: Int, height: Int, layout: PixelBuffer.Layout, seed: UInt64 = 42)
        -> PixelBuffer
    {
        var image = PixelBuffer(width: width, height: height, layout: layout)
        var rng = SplitMix64(seed: seed)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<layout.channels {
                    let v: Int
                    switch kind {
                    case .gradient:
                        v = (x * 255 / max(1, width - 1) + y * 128 / max(1, height - 1) + c * 60) % 256
                    case .checkerboard:
                        v = ((x / 4 + y / 4) % 2 == 0) ? 230 - c * 20 : 20 + c * 30
                    case .noise:
                        v = Int(rng.next() & 0xFF)
                    case .edges:
                        v = (x > width / 3 && y < 2 * height / 3) ? 250 - c * 40 : 10 + c * 40
                    }
                    image[x, y, c] = UInt8(v)
                }
                if layout == .rgba { image[x, y, 3] = 255 }  // opaque; alpha tests build their own
            }
        }
        return image
    }
}

/// The largest per-byte difference between two equal-sized images.
func maxAbsDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    precondition(a.width == b.width && a.height == b.height && a.layout == b.layout)
    var worst = 0
    for y in 0..<a.height {
        for x in 0..<a.width {
            for c in 0..<a.layout.channels { worst = max(worst, abs(Int(a[x, y, c]) - Int(b[x, y, c]))) }
        }
    }
    return worst
}

/// The mean per-byte difference between two equal-sized images.
func meanAbsDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.width == b.width && a.height == b.height && a.layout == b.layout)
    var total = 0
    for y in 0..<a.height {
        for x in 0..<a.width {
            for c in 0..<a.layout.channels { total += abs(Int(a[x, y, c]) - Int(b[x, y, c])) }
        }
    }
    return Double(total) / Double(max(1, a.pixelCount * a.layout.channels))
}
