/// The output sizes the policy allows for an upright source size: the planner's target and the
/// engine's smaller tries.
///
///     TargetSize.main(for: Size(width: 5760, height: 3840), policy: AttachmentPolicy())  // 2048×1365
package enum TargetSize {
    /// Fits `policy.maxLongSide`, then shrinks (aspect kept) until `width * height * 4 <=
    /// policy.rules.decodedBudget`. Never upscales unless `policy.allowUpscale`.
    package static func main(for upright: Size, policy: AttachmentPolicy) -> Size {
        let box = Size(width: policy.maxLongSide, height: policy.maxLongSide)
        let fitted = FitBox.fit(upright, in: box, allowUpscale: policy.allowUpscale)
        return withinMemory(fitted, aspectOf: upright, budget: policy.rules.decodedBudget)
    }

    /// The thumbnail's size: fits a `side` square box, never upscaled.
    package static func thumbnail(for upright: Size, side: Int) -> Size {
        FitBox.fit(upright, in: Size(width: side, height: side))
    }

    /// `size`, or the largest size with `upright`'s aspect ratio whose RGBA bytes fit `budget`.
    package static func withinMemory(_ size: Size, aspectOf upright: Size, budget: Int) -> Size {
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
    package static func shrunk(_ size: Size, by factor: Double, aspectOf upright: Size) -> Size {
        let side = max(1, Int(Double(max(size.width, size.height)) * factor))
        return FitBox.fit(upright, in: Size(width: side, height: side), allowUpscale: true)
    }
}
