import Foundation
import ImageCodecs

/// Mean structural similarity of two images' BT.601 luma, with the standard 11-tap Gaussian
/// window (σ 1.5) and constants K1 0.01, K2 0.03 for 8-bit data.
///
///     #expect(SSIM.luma(fast, reference) >= 0.99)
///
/// Only fully covered windows count; a side shorter than 11 shrinks the window to fit.
enum SSIM {
    static func luma(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height, "SSIM needs equal sizes")
        return mean(luma(a), luma(b), width: a.width, height: a.height)
    }

    /// BT.601 luma per pixel (gray is used as is; alpha ignored).
    static func luma(_ image: PixelBuffer) -> [Double] {
        var out = [Double](repeating: 0, count: image.pixelCount)
        for y in 0..<image.height {
            for x in 0..<image.width {
                out[y * image.width + x] =
                    image.layout == .gray
                    ? Double(image[x, y, 0])
                    : 0.299 * Double(image[x, y, 0]) + 0.587 * Double(image[x, y, 1]) + 0.114 * Double(image[x, y, 2])
            }
        }
        return out
    }

    static func mean(_ x: [Double], _ y: [Double], width: Int, height: Int) -> Double {
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let kw = gaussian(min(11, width)), kh = gaussian(min(11, height))
        let mx = blur(x, width, height, kw, kh), my = blur(y, width, height, kw, kh)
        let xx = blur(zip(x, x).map(*), width, height, kw, kh)
        let yy = blur(zip(y, y).map(*), width, height, kw, kh)
        let xy = blur(zip(x, y).map(*), width, height, kw, kh)
        var total = 0.0
        for i in 0..<mx.count {
            let vx = xx[i] - mx[i] * mx[i], vy = yy[i] - my[i] * my[i], cov = xy[i] - mx[i] * my[i]
            total +=
                ((2 * mx[i] * my[i] + c1) * (2 * cov + c2)) / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2))
        }
        return total / Double(mx.count)
    }

    /// A normalised Gaussian of `n` taps, σ 1.5.
    static func gaussian(_ n: Int) -> [Double] {
        let center = Double(n - 1) / 2
        let g = (0..<n).map { exp(-((Double($0) - center) * (Double($0) - center)) / (2 * 1.5 * 1.5)) }
        let sum = g.reduce(0, +)
        return g.map { $0 / sum }
    }

    /// "Valid" separable convolution: output (width - kw + 1) × (height - kh + 1).
    static func blur(_ v: [Double], _ width: Int, _ height: Int, _ kw: [Double], _ kh: [Double]) -> [Double] {
        let ow = width - kw.count + 1, oh = height - kh.count + 1
        var rows = [Double](repeating: 0, count: ow * height)
        for y in 0..<height {
            for x in 0..<ow {
                var s = 0.0
                for k in 0..<kw.count { s += v[y * width + x + k] * kw[k] }
                rows[y * ow + x] = s
            }
        }
        var out = [Double](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            for x in 0..<ow {
                var s = 0.0
                for k in 0..<kh.count { s += rows[(y + k) * ow + x] * kh[k] }
                out[y * ow + x] = s
            }
        }
        return out
    }
}
