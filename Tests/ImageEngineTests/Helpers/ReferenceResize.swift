import Foundation
import ImageCodecs

/// A slow, simple, floating-point Lanczos3 resizer: the definition the fast one is held to.
///
///     let expected = ReferenceResize.lanczos3(image, width: 256, height: 171)
///
/// Same kernel and support scaling as the engine (the kernel widens by the reduction factor),
/// but in Double throughout, with no quantised weights and no rounding between the passes.
/// RGBA is resampled premultiplied.
enum ReferenceResize {
    static func lanczos3(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let c = image.layout.channels
        let alpha = image.layout.hasAlpha
        // Source as premultiplied doubles.
        var src = [Double](repeating: 0, count: image.pixelCount * c)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let a = alpha ? Double(image[x, y, 3]) / 255 : 1
                for k in 0..<c {
                    let v = Double(image[x, y, k])
                    src[(y * image.width + x) * c + k] = (alpha && k < 3) ? v * a : v
                }
            }
        }
        // Horizontal: image.width -> width, every row.
        var mid = [Double](repeating: 0, count: width * image.height * c)
        for x in 0..<width {
            let taps = weights(x, source: image.width, destination: width)
            for y in 0..<image.height {
                for k in 0..<c {
                    var s = 0.0
                    for (i, w) in taps { s += src[(y * image.width + i) * c + k] * w }
                    mid[(y * width + x) * c + k] = s
                }
            }
        }
        // Vertical: image.height -> height, every column.
        var out = PixelBuffer(width: width, height: height, layout: image.layout)
        for y in 0..<height {
            let taps = weights(y, source: image.height, destination: height)
            for x in 0..<width {
                var v = [Double](repeating: 0, count: c)
                for k in 0..<c {
                    for (i, w) in taps { v[k] += mid[(i * width + x) * c + k] * w }
                }
                if alpha {
                    let a = min(max(v[3], 0), 255)
                    for k in 0..<3 { v[k] = a > 0 ? v[k] / (a / 255) : 0 }
                }
                for k in 0..<c { out[x, y, k] = UInt8(min(max(v[k].rounded(), 0), 255)) }
            }
        }
        return out
    }

    /// (source index, normalised weight) pairs for output `i`.
    static func weights(_ i: Int, source: Int, destination: Int) -> [(Int, Double)] {
        let scale = Double(source) / Double(destination)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        let center = (Double(i) + 0.5) * scale
        let lo = max(0, Int((center - support + 0.5).rounded(.down)))
        let hi = min(source, Int((center + support + 0.5).rounded(.down)))
        var taps: [(Int, Double)] = []
        for j in lo..<max(hi, lo + 1) {
            taps.append((j, lanczos3((Double(j) + 0.5 - center) / filterScale)))
        }
        let sum = taps.reduce(0) { $0 + $1.1 }
        return taps.map { ($0.0, $0.1 / sum) }
    }

    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        if x == 0 { return 1 }
        if x >= 3 { return 0 }
        return 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x)
    }
}
