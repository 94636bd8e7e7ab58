import Foundation
import ImageCodecs
import MediaTypes

/// How close a decoded output is to the generated source (the ground truth: the pixels before
/// any encoder saw them, upright).
///
/// - `exact`: lossless outputs at the source's size (PNG; a GIF whose frames kept their
///   exact colours): the largest channel difference where alpha > 0, and of alpha.
/// - `grid`: everything else (resized, JPEG, quantised GIF): both images are composited over
///   black and over white and averaged over the same grid of cells (up to 8 x 8, each at least
///   8 output pixels a side), then compared cell by cell. Averaging over cells makes Lanczos
///   against box, JPEG's 8x8 blocks and dithering comparable; what it catches is a wrong
///   orientation, a shifted or swapped channel, lost alpha, a wrong frame, a flat or garbage image.
struct PixelCheck {
    /// Largest channel difference of an `exact` comparison (levels of 255).
    var maxDifference = 0
    /// `grid`: mean and largest cell difference (levels of 255).
    var meanError = 0.0
    var maxCellError = 0.0

    /// Straight-alpha RGBA comparison of two images of one size; alpha 0 pixels compare by alpha only.
    static func exact(_ source: PixelBuffer, _ output: PixelBuffer) -> Int {
        let rgba = toRGBA(output)
        var worst = 0
        for p in 0..<(source.width * source.height) {
            let o = p * 4
            let a = Int(source.bytes[o + 3]), b = Int(rgba.bytes[o + 3])
            worst = max(worst, abs(a - b))
            if a > 0, b > 0 {
                for c in 0..<3 { worst = max(worst, abs(Int(source.bytes[o + c]) - Int(rgba.bytes[o + c]))) }
            }
        }
        return worst
    }

    /// Cell means of both images over black and over white: (mean, max) cell difference.
    /// `cellSide`: the shorter side of a cell, in output pixels.
    ///
    /// The output's cells are whole output pixels; the source's cells are exactly the regions those
    /// pixels show, mapped to source coordinates and weighted by area (a source pixel a cell edge
    /// cuts counts in part on each side). Rounding the source's cells to its own pixels instead
    /// put a hard alpha edge on one side of a cell in the source and the other in the output: seed
    /// 1004497 (63x63 -> 62x62, binary alpha) had a cell 33 levels off with Pillow's Lanczos giving
    /// the engine's very pixels.
    static func grid(_ source: PixelBuffer, _ output: PixelBuffer) -> (mean: Double, max: Double, cellSide: Int) {
        let out = toRGBA(output)
        let gw = max(1, min(8, out.width / 8)), gh = max(1, min(8, out.height / 8))
        // Output cell c spans output pixels [edge(c), edge(c + 1)), as `x * g / w` assigns them.
        func edges(_ n: Int, _ g: Int) -> [Double] { (0...g).map { Double(($0 * n + g - 1) / g) } }
        let ex = edges(out.width, gw), ey = edges(out.height, gh)
        let sx = Double(source.width) / Double(out.width), sy = Double(source.height) / Double(out.height)
        let a = cellMeans(source, edgesX: ex.map { $0 * sx }, edgesY: ey.map { $0 * sy })
        let b = cellMeans(out, edgesX: ex, edgesY: ey)
        var sum = 0.0, worst = 0.0
        for i in 0..<a.count {
            let d = abs(a[i] - b[i])
            sum += d
            worst = max(worst, d)
        }
        return (sum / Double(a.count), worst, max(1, min(out.width / gw, out.height / gh)))
    }

    /// Per cell (the rectangles between consecutive `edgesX` and `edgesY`, in pixel coordinates,
    /// fractional): premultiplied R, G, B (over black) and R, G, B over white, as area-weighted
    /// means in 0...255.
    static func cellMeans(_ image: PixelBuffer, edgesX: [Double], edgesY: [Double]) -> [Double] {
        let gw = edgesX.count - 1, gh = edgesY.count - 1
        var sums = [Double](repeating: 0, count: gw * gh * 6)
        var areas = [Double](repeating: 0, count: gw * gh)
        // The share of pixel `p` (covering [p, p + 1)) in each cell along one axis.
        func shares(_ p: Int, _ e: [Double]) -> [(cell: Int, weight: Double)] {
            var out: [(Int, Double)] = []
            for c in 0..<(e.count - 1) {
                let w = min(Double(p + 1), e[c + 1]) - max(Double(p), e[c])
                if w > 1e-9 { out.append((c, w)) }
            }
            return out
        }
        let columns = (0..<image.width).map { shares($0, edgesX) }
        for y in 0..<image.height {
            for (cy, wy) in shares(y, edgesY) {
                for x in 0..<image.width {
                    let o = (y * image.width + x) * 4
                    let alpha = Double(image.bytes[o + 3]) / 255
                    for (cx, wx) in columns[x] {
                        let cell = cy * gw + cx, w = wx * wy
                        for c in 0..<3 {
                            let v = Double(image.bytes[o + c]) * alpha
                            sums[cell * 6 + c] += v * w
                            sums[cell * 6 + 3 + c] += (v + 255 * (1 - alpha)) * w
                        }
                        areas[cell] += w
                    }
                }
            }
        }
        return sums.indices.map { sums[$0] / max(1e-9, areas[$0 / 6]) }
    }

    /// Any layout as tight RGBA.
    static func toRGBA(_ image: PixelBuffer) -> PixelBuffer {
        if image.layout == .rgba, image.stride == image.width * 4 { return image }
        var out = PixelBuffer(width: image.width, height: image.height, layout: .rgba)
        let ch = image.layout.channels
        for y in 0..<image.height {
            for x in 0..<image.width {
                let s = y * image.stride + x * ch, d = (y * image.width + x) * 4
                switch image.layout {
                case .gray:
                    out.bytes[d] = image.bytes[s]; out.bytes[d + 1] = image.bytes[s]; out.bytes[d + 2] = image.bytes[s];
                    out.bytes[d + 3] = 255
                case .rgb:
                    out.bytes[d] = image.bytes[s]; out.bytes[d + 1] = image.bytes[s + 1];
                    out.bytes[d + 2] = image.bytes[s + 2]; out.bytes[d + 3] = 255
                case .rgba: for c in 0..<4 { out.bytes[d + c] = image.bytes[s + c] }
                }
            }
        }
        return out
    }

    /// `image` (tight RGBA) averaged down to `width` x `height`: each output pixel the
    /// area-weighted mean of the source pixels it covers, colour premultiplied by alpha. An
    /// independent stand-in for the engine's resampler where order matters: a GIF's alpha is
    /// made binary after the resize, so the reference must be too.
    static func boxResize(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        if image.width == width && image.height == height { return image }
        var out = PixelBuffer(width: width, height: height, layout: .rgba)
        let sx = Double(image.width) / Double(width), sy = Double(image.height) / Double(height)
        for y in 0..<height {
            let y0 = Double(y) * sy, y1 = Double(y + 1) * sy
            for x in 0..<width {
                let x0 = Double(x) * sx, x1 = Double(x + 1) * sx
                var sum = [0.0, 0.0, 0.0, 0.0], area = 0.0
                for iy in Int(y0)..<min(image.height, Int(y1.rounded(.up))) {
                    let wy = min(y1, Double(iy + 1)) - max(y0, Double(iy))
                    for ix in Int(x0)..<min(image.width, Int(x1.rounded(.up))) {
                        let wxy = (min(x1, Double(ix + 1)) - max(x0, Double(ix))) * wy
                        let o = (iy * image.width + ix) * 4
                        let a = Double(image.bytes[o + 3])
                        for c in 0..<3 { sum[c] += Double(image.bytes[o + c]) * a * wxy }
                        sum[3] += a * wxy
                        area += wxy
                    }
                }
                let d = (y * width + x) * 4
                let alpha = sum[3] / max(area, 1e-9)
                for c in 0..<3 { out.bytes[d + c] = sum[3] > 0 ? UInt8(min(255, (sum[c] / sum[3]).rounded())) : 0 }
                out.bytes[d + 3] = UInt8(min(255, alpha.rounded()))
            }
        }
        return out
    }

    /// How far from the GIF threshold (128) a resized alpha still counts as an edge either side may
    /// round its own way: the box filter of the reference and the engine's Lanczos disagree by a few
    /// levels there, and a pixel half covered is right transparent or opaque.
    static let alphaEdgeBand = 32

    /// `image` (tight RGBA) with alpha made binary as a GIF makes it (< 128 transparent). A pixel
    /// on an edge (alpha within `alphaEdgeBand` of 128) takes `output`'s decision, so a case such as
    /// seed 803681 (8 rows, the last 2 transparent, resized to 6: output row 4 is exactly half
    /// covered, 127.5) is not failed for a tie the two filters break differently. Colour still counts.
    /// With `output` nil, every pixel is decided by its own alpha.
    static func binaryAlpha(_ image: PixelBuffer, edgesAs output: PixelBuffer?) -> PixelBuffer {
        var out = image
        let decided = output.map(toRGBA)
        for p in 0..<(image.width * image.height) {
            let alpha = Int(image.bytes[p * 4 + 3])
            var opaque = alpha >= 128
            if let decided, abs(alpha - 128) <= alphaEdgeBand, p < decided.width * decided.height {
                opaque = decided.bytes[p * 4 + 3] >= 128
            }
            out.bytes[p * 4 + 3] = opaque ? 255 : 0
        }
        return out
    }

    /// The frames of an encoded output: one for JPEG and PNG, every composited canvas of a GIF.
    static func decodeFrames(_ data: Data, format: MediaFormat) throws -> [PixelBuffer] {
        if format == .gif {
            return try ImageCodecs.withAnimation(data, format: .gif, options: DecodeOptions(strict: true)) { source in
                var frames: [PixelBuffer] = []
                while let frame = try source.nextFrame() { frames.append(frame.canvas) }
                return frames
            }
        }
        return [try ImageCodecs.decode(data, format: format, options: DecodeOptions(strict: true)).pixels]
    }
}
