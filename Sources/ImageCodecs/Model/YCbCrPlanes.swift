/// An image as JPEG stores it: a full-size luma plane and two chroma planes at half width and
/// half height (4:2:0, rounded up), each a `.gray` `PixelBuffer`.
///
///     let planes = YCbCrPlanes(y: luma, cb: blue, cr: red)   // luma 2048x1365, chroma 1024x683
///     let jpeg = try JPEGCodec.encode(planes, quality: 85)
///
/// The JPEG-to-JPEG path resizes these planes instead of RGB pixels (`JPEGCodec.withPlanes`):
/// half the samples, and neither the decoder's colour conversion and upsampling nor the
/// encoder's colour conversion and downsampling.
package struct YCbCrPlanes {
    package var y: PixelBuffer
    package var cb: PixelBuffer
    package var cr: PixelBuffer

    /// Traps unless every plane is `.gray` and the chroma planes are `chromaSize` of the luma.
    package init(y: PixelBuffer, cb: PixelBuffer, cr: PixelBuffer) {
        let chroma = Self.chromaSize(width: y.width, height: y.height)
        precondition(
            [y, cb, cr].allSatisfy { $0.layout == .gray } && cb.width == chroma.width && cb.height == chroma.height
                && cr.width == chroma.width && cr.height == chroma.height,
            "YCbCr planes must be gray, chroma half the luma size (rounded up)")
        (self.y, self.cb, self.cr) = (y, cb, cr)
    }

    package var width: Int { y.width }
    package var height: Int { y.height }

    /// The 4:2:0 chroma size for a `width` x `height` luma plane (TurboJPEG's `tjPlaneWidth`).
    package static func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + 1) / 2, (height + 1) / 2)
    }
}
