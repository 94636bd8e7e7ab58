import MediaTypes
/// Where each stored pixel lands in the upright image, as byte steps: the stored pixel at
/// column `x`, row `y` is written at `origin + x * columnStep + y * rowStep`.
///
///     let map = PixelMapping(.right, storedWidth: 3, storedHeight: 2, channels: 1, uprightStride: 2)
///     // stored (0, 0) -> upright (1, 0): origin 1, columnStep 2, rowStep -1
///
/// One mapping serves both `Orientation.apply(to:)` and the resizer's last pass, so the
/// orientation can be fused into the write-out at no extra cost.
struct PixelMapping: Sendable, Hashable {
    var origin: Int
    var columnStep: Int
    var rowStep: Int

    /// The identity mapping into a buffer with `stride` bytes per row.
    init(channels: Int, stride: Int) {
        origin = 0
        columnStep = channels
        rowStep = stride
    }

    init(_ orientation: Orientation, storedWidth w: Int, storedHeight h: Int, channels c: Int, uprightStride s: Int) {
        // Upright pixel (u, v) sits at v * s + u * c. Each case writes (u, v) for stored (x, y).
        switch orientation {
        case .up:  // (x, y)
            (origin, columnStep, rowStep) = (0, c, s)
        case .upMirrored:  // (w-1-x, y)
            (origin, columnStep, rowStep) = ((w - 1) * c, -c, s)
        case .down:  // (w-1-x, h-1-y)
            (origin, columnStep, rowStep) = ((h - 1) * s + (w - 1) * c, -c, -s)
        case .downMirrored:  // (x, h-1-y)
            (origin, columnStep, rowStep) = ((h - 1) * s, c, -s)
        case .leftMirrored:  // (y, x)
            (origin, columnStep, rowStep) = (0, s, c)
        case .right:  // (h-1-y, x)
            (origin, columnStep, rowStep) = ((h - 1) * c, s, -c)
        case .rightMirrored:  // (h-1-y, w-1-x)
            (origin, columnStep, rowStep) = ((w - 1) * s + (h - 1) * c, -s, -c)
        case .left:  // (y, w-1-x)
            (origin, columnStep, rowStep) = ((w - 1) * s, -s, c)
        }
    }
}
