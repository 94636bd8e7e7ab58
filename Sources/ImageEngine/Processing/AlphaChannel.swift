import ImageCodecs

/// Whether RGBA pixels really use their alpha, and dropping it when they do not.
///
///     if !AlphaChannel.isOpaque(pixels) { /* encode PNG */ }
enum AlphaChannel {
    /// True for gray and RGB, and for RGBA whose every alpha byte is 255.
    /// - Complexity: O(pixels), a pointer loop that stops at the first row with a translucent pixel.
    static func isOpaque(_ image: PixelBuffer) -> Bool {
        guard image.layout == .rgba, image.pixelCount > 0 else { return true }
        return image.withUnsafeBytes { raw in
            Premultiply.isOpaque(raw.baseAddress!, width: image.width, height: image.height, stride: image.stride)
        }
    }

    /// An RGB copy of RGBA pixels (the alpha bytes dropped); other layouts are returned as they are.
    /// - Complexity: O(pixels), one pointer pass.
    static func droppingAlpha(_ image: PixelBuffer) -> PixelBuffer {
        guard image.layout == .rgba else { return image }
        var out = PixelBuffer(width: image.width, height: image.height, layout: .rgb)
        guard image.pixelCount > 0 else { return out }
        let width = image.width, height = image.height, srcStride = image.stride, dstStride = out.stride
        image.withUnsafeBytes { raw in
            out.withUnsafeMutableBytes { outRaw in
                let src = raw.baseAddress!, dst = outRaw.baseAddress!
                for y in 0..<height {
                    let s = src + y &* srcStride, d = dst + y &* dstStride
                    var i = 0, o = 0
                    while i < width &* 4 {
                        d[o] = s[i]
                        d[o &+ 1] = s[i &+ 1]
                        d[o &+ 2] = s[i &+ 2]
                        i &+= 4
                        o &+= 3
                    }
                }
            }
        }
        return out
    }
}
