/// Output dimensions for "fit in a W×H box".
///
///     FitBox.fit(Size(width: 5760, height: 3840), in: Size(width: 256, height: 256))  // 256×171
public enum FitBox {
    /// The limiting side equals the box; the other side keeps the aspect ratio, rounded to
    /// nearest (halves up) and never 0. Sizes already inside the box are returned unchanged
    /// unless `allowUpscale`.
    ///
    /// `size` and `box` must be positive (a programmer error otherwise).
    /// - Complexity: O(1), exact integer arithmetic.
    public static func fit(_ size: Size, in box: Size, allowUpscale: Bool = false) -> Size {
        precondition(size.width > 0 && size.height > 0 && box.width > 0 && box.height > 0, "sizes must be positive")
        if !allowUpscale, size.width <= box.width, size.height <= box.height { return size }
        // Width limits when width / box.width >= height / box.height.
        if size.width * box.height >= size.height * box.width {
            return Size(width: box.width, height: roundedRatio(size.height, times: box.width, over: size.width))
        } else {
            return Size(width: roundedRatio(size.width, times: box.height, over: size.height), height: box.height)
        }
    }

    /// max(1, round(a * b / c)) with halves rounded up.
    static func roundedRatio(_ a: Int, times b: Int, over c: Int) -> Int {
        max(1, (2 * a * b + c) / (2 * c))
    }
}
