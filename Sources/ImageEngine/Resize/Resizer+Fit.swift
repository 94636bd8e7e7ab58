import MediaTypes
import ImageCodecs

extension Resizer {
    /// `image` turned upright and fitted in `box` (see `FitBox.fit`), in one call.
    ///
    ///     let thumb = resizer.fit(decoded, in: Size(width: 256, height: 256), orientation: .right,
    ///                             originalSize: Size(width: 5760, height: 3840))
    ///
    /// - Parameters:
    ///   - orientation: how `image` is stored; the fit is computed on the upright size.
    ///   - originalSize: the stored size of the full-resolution image when `image` was decoded
    ///     smaller (shrink-on-load). Output dimensions then follow the original aspect ratio,
    ///     so they match what a full-resolution resize would give.
    /// - Returns: `image` itself when it already fits, is upright, and upscaling is off.
    package func fit(
        _ image: PixelBuffer, in box: Size, orientation: Orientation = .up, originalSize: Size? = nil,
        allowUpscale: Bool = false
    ) -> PixelBuffer {
        let stored = originalSize ?? Size(width: image.width, height: image.height)
        let upright = orientation.uprightSize(width: stored.width, height: stored.height)
        let target = FitBox.fit(Size(width: upright.width, height: upright.height), in: box, allowUpscale: allowUpscale)
        return resize(image, to: target, orientation: orientation)
    }
}
