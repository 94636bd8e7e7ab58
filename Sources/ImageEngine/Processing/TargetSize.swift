import MediaTypes
import ImageCodecs

/// The output sizes a set of limits allows for an upright source size.
///
///     TargetSize.main(for: Size(width: 5760, height: 3840), limits: ProcessingLimits())  // 2048×1365
enum TargetSize {
    /// Fits `maxLongSide`, then shrinks (aspect kept) until `width * height * 4 <= decodedBudget`.
    /// Never upscales unless `allowUpscale`.
    static func main(for upright: Size, limits: ProcessingLimits) -> Size {
        let box = Size(width: limits.maxLongSide, height: limits.maxLongSide)
        let fitted = FitBox.fit(upright, in: box, allowUpscale: limits.allowUpscale)
        return withinMemory(fitted, aspectOf: upright, budget: limits.decodedBudget)
    }

    /// The thumbnail's size: fits a `side` square box, never upscaled.
    static func thumbnail(for upright: Size, side: Int) -> Size {
        FitBox.fit(upright, in: Size(width: side, height: side))
    }

    /// `size`, or the largest size with `upright`'s aspect ratio whose RGBA bytes fit `budget`.
    static func withinMemory(_ size: Size, aspectOf upright: Size, budget: Int) -> Size {
        let maxPixels = max(1, budget / 4)
        guard size.width * size.height > maxPixels else { return size }
        let long = Double(max(size.width, size.height))
        var side = max(1, Int(long * (Double(maxPixels) / Double(size.width * size.height)).squareRoot()))
        var fitted = FitBox.fit(upright, in: Size(width: side, height: side), allowUpscale: true)
        while fitted.width * fitted.height > maxPixels, side > 1 {
            side -= 1
            fitted = FitBox.fit(upright, in: Size(width: side, height: side), allowUpscale: true)
        }
        return fitted
    }

    /// `size` scaled by `factor` (< 1), aspect kept from `upright`, at least 1×1.
    static func shrunk(_ size: Size, by factor: Double, aspectOf upright: Size) -> Size {
        let side = max(1, Int(Double(max(size.width, size.height)) * factor))
        return FitBox.fit(upright, in: Size(width: side, height: side), allowUpscale: true)
    }
}
