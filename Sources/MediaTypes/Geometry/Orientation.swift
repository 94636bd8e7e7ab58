/// The EXIF orientation of stored pixels: how to turn them to display them upright.
///
///     let upright = Orientation.right.apply(to: decoded)  // rotates 90° clockwise
///
/// Raw values are the EXIF tag 0x0112 values. The names say where the stored image's top row
/// ends up, as in `CGImagePropertyOrientation`.
public enum Orientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: already upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotate 180° to display.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored about the top-left to bottom-right diagonal).
    case leftMirrored = 5
    /// 6: rotate 90° clockwise to display.
    case right = 6
    /// 7: transversed (mirrored about the top-right to bottom-left diagonal).
    case rightMirrored = 7
    /// 8: rotate 90° counter-clockwise to display.
    case left = 8

    /// True when the upright image's width is the stored image's height (orientations 5...8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The upright size of a stored image of `width` × `height`.
    public func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }
}
