internal import CTurboJPEG

/// The decode-time scale each codec picks for `DecodeOptions.minimumSize`.
enum Scaling {
    /// The box a scaled decode must still cover: the requested box, clamped to the source so
    /// a box larger than the image asks for full size.
    private static func target(width: Int, height: Int, box: (width: Int, height: Int)) -> (Int, Int) {
        (min(max(box.width, 1), width), min(max(box.height, 1), height))
    }

    /// JPEG: the smallest TurboJPEG factor (num/denom <= 1) whose output is at least the box
    /// in both directions. Returns the factor and the output size TurboJPEG will produce.
    static func jpeg(width: Int, height: Int, box: (width: Int, height: Int)?) -> (
        num: Int, denom: Int, width: Int, height: Int
    ) {
        guard let box else { return (1, 1, width, height) }
        let (tw, th) = target(width: width, height: height, box: box)
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return (1, 1, width, height) }
        var best = (num: 1, denom: 1, width: width, height: height)
        for i in 0..<Int(count) {
            let num = Int(factors[i].num), denom = Int(factors[i].denom)
            guard num > 0, denom > 0, num <= denom else { continue }
            // TJSCALED(): ceil(dimension * num / denom).
            let w = (width * num + denom - 1) / denom
            let h = (height * num + denom - 1) / denom
            if w >= tw, h >= th, w * h < best.width * best.height {
                best = (num, denom, w, h)
            }
        }
        return best
    }

    /// WebP: libwebp scales to any size, so the output is the smallest aspect-kept size that
    /// covers the box in both directions. A box of the source's aspect (the fitted size the
    /// engine asks for) comes out at exactly its size: rounding up leaves one axis a pixel
    /// over, and the resizer would then resample every row at a sub-pixel offset, which blurs
    /// (luma SSIM 0.9845 against 0.9848 on the corpus photos fitted in 2048) where an exact size
    /// leaves it a copy.
    static func webp(width: Int, height: Int, box: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        guard let box else { return (width, height) }
        let (tw, th) = target(width: width, height: height, box: box)
        let scale = max(Double(tw) / Double(width), Double(th) / Double(height))
        guard scale < 1 else { return (width, height) }
        let w = min(width, max(tw, Int((Double(width) * scale).rounded(.up))))
        let h = min(height, max(th, Int((Double(height) * scale).rounded(.up))))
        if w - tw <= 1, h - th <= 1 { return (tw, th) }
        return (w, h)
    }
}
