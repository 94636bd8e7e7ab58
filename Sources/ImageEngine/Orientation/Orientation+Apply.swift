import MediaTypes
import ImageCodecs

extension Orientation {
    /// The upright image: `self` undone on `image`.
    ///
    ///     let upright = Orientation.left.apply(to: stored)  // 3×2 in, 2×3 out
    ///
    /// - Returns: a new buffer with a packed stride, or `image` itself for `.up`.
    /// - Complexity: O(pixels), one pass with pointer arithmetic.
    public func apply(to image: PixelBuffer) -> PixelBuffer {
        if self == .up { return image }
        let c = image.layout.channels
        let (uw, uh) = uprightSize(width: image.width, height: image.height)
        var out = PixelBuffer(width: uw, height: uh, layout: image.layout)
        if image.pixelCount == 0 { return out }
        let map = PixelMapping(
            self, storedWidth: image.width, storedHeight: image.height, channels: c, uprightStride: out.stride)
        let srcStride = image.stride, w = image.width, h = image.height
        image.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                let s = src.baseAddress!, d = dst.baseAddress!
                switch c {
                case 1: Self.remap(s, srcStride, d, map, w, h, channels: 1)
                case 3: Self.remap(s, srcStride, d, map, w, h, channels: 3)
                default: Self.remap(s, srcStride, d, map, w, h, channels: 4)
                }
            }
        }
        return out
    }

    @inline(__always)
    private static func remap(
        _ src: UnsafePointer<UInt8>, _ srcStride: Int, _ dst: UnsafeMutablePointer<UInt8>,
        _ map: PixelMapping, _ w: Int, _ h: Int, channels: Int
    ) {
        for y in 0..<h {
            var s = src + y * srcStride
            var d = dst + (map.origin + y * map.rowStep)
            for _ in 0..<w {
                for k in 0..<channels { d[k] = s[k] }
                s += channels
                d += map.columnStep
            }
        }
    }
}
